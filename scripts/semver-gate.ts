// The semver gate: no line of a package's API report (packages/*/etc/*.api.md) removed or changed since
// the package's last release, unless a pending changeset bumps the package major or the change is
// acknowledged as compatible in .changeset/compatible-changes.json. The judgement is
// scripts/semver-verdict.ts; this reads its inputs from git and the working tree. The last release is
// what .ci/release-bases.sh finds (changeset-check uses the same); a shallow clone fails.
//
//   pnpm semver:check             # in CI after pnpm api:check; exits 1 on a firing line, 2 when it cannot tell
//   pnpm semver:check --entries   # also prints each firing line as an entry for the acknowledgements file
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Acknowledgement,
  acknowledgementEntry,
  type Changeset,
  formatVerdict,
  type PackageInput,
  parseAcknowledgements,
  parseChangeset,
  type ReportPair,
  semverVerdict,
} from './semver-verdict.js';

/** The acknowledged compatible changes since the last release, relative to the repository root. */
export const ACKNOWLEDGEMENTS_FILE = '.changeset/compatible-changes.json';

const releaseBasesScript = resolve(dirname(fileURLToPath(import.meta.url)), '../.ci/release-bases.sh');

function git(root: string, args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

/** Each published package with its last release and its reports then and now. */
function packagesOf(root: string): PackageInput[] {
  const bases = spawnSync('bash', [releaseBasesScript], { cwd: root, encoding: 'utf8' });
  if (bases.status !== 0) {
    process.stderr.write(bases.stderr);
    throw new GateError(
      `semver-gate: cannot find the last release (.ci/release-bases.sh exited ${bases.status})`,
    );
  }
  return bases.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line): PackageInput => {
      const [dir = '', name = '', commit = '', kind = '', label = ''] = line.split('\t');
      const etc = `${dir}/etc`;
      const then =
        kind === 'none'
          ? []
          : git(root, ['ls-tree', '--name-only', commit, '--', `${etc}/`])
              .split('\n')
              .filter((path) => path.endsWith('.api.md'))
              .map((path) => path.slice(etc.length + 1));
      const now = existsSync(join(root, etc))
        ? readdirSync(join(root, etc)).filter((file) => file.endsWith('.api.md'))
        : [];
      const reports = [...new Set([...then, ...now])].sort().map(
        (report): ReportPair => ({
          report,
          before: then.includes(report) ? git(root, ['show', `${commit}:${etc}/${report}`]) : undefined,
          after: now.includes(report) ? readFileSync(join(root, etc, report), 'utf8') : undefined,
        }),
      );
      const version =
        kind === 'none'
          ? undefined
          : (JSON.parse(git(root, ['show', `${commit}:${dir}/package.json`])) as { version?: string })
              .version;
      return {
        name,
        release: kind === 'none' ? undefined : { commit, version: version ?? '(no version)', label },
        reports,
      };
    });
}

/** The pending changesets: every .changeset/*.md but the README. */
function changesetsOf(root: string): Changeset[] {
  const dir = join(root, '.changeset');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.md') && file.toLowerCase() !== 'readme.md')
    .sort()
    .map((file) => parseChangeset(`.changeset/${file}`, readFileSync(join(dir, file), 'utf8')));
}

function acknowledgementsOf(root: string): Acknowledgement[] {
  const path = join(root, ACKNOWLEDGEMENTS_FILE);
  if (!existsSync(path)) return [];
  try {
    return parseAcknowledgements(ACKNOWLEDGEMENTS_FILE, readFileSync(path, 'utf8'));
  } catch (error) {
    throw new GateError(`semver-gate: ${(error as Error).message}`);
  }
}

/** A reason the gate cannot judge (exit 2), as opposed to a firing line (exit 1). */
class GateError extends Error {}

/**
 * Runs the gate in the repository around `cwd`; returns the exit code.
 *
 * @example
 * process.exitCode = runSemverGate(process.cwd(), process.argv.slice(2));
 */
export function runSemverGate(cwd: string, args: readonly string[]): number {
  try {
    const root = git(cwd, ['rev-parse', '--show-toplevel']).trim();
    const verdict = semverVerdict({
      packages: packagesOf(root),
      changesets: changesetsOf(root),
      acknowledgements: acknowledgementsOf(root),
    });
    console.log(formatVerdict(verdict, ACKNOWLEDGEMENTS_FILE));
    if (args.includes('--entries')) {
      const entries: Record<string, unknown[]> = {};
      for (const pkg of verdict.packages) {
        const firing = pkg.removals.filter((removal) => removal.acknowledged === undefined);
        if (firing.length > 0) entries[pkg.name] = firing.map(acknowledgementEntry);
      }
      console.log(
        `\nEntries for ${ACKNOWLEDGEMENTS_FILE}, one per unacknowledged line (only for compatible changes; write each reason):`,
      );
      console.log(JSON.stringify(entries, null, 2));
    }
    return verdict.ok ? 0 : 1;
  } catch (error) {
    console.error(error instanceof GateError ? error.message : error);
    return 2;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = runSemverGate(process.cwd(), process.argv.slice(2));
}
