// `pnpm semver:check` end to end: the command run in a throwaway git repository with one published
// package, released once (the commit that bumps its version), then changed in the working tree.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tsx = join(repoRoot, 'node_modules', '.bin', 'tsx');
const gate = join(repoRoot, 'scripts', 'semver-gate.ts');

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Gate Test',
  GIT_AUTHOR_EMAIL: 'gate@example.invalid',
  GIT_COMMITTER_NAME: 'Gate Test',
  GIT_COMMITTER_EMAIL: 'gate@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

function report(body: string): string {
  return `## API Report File for "pkg-a"\n\n\`\`\`ts\n\n${body.trim()}\n\n\`\`\`\n`;
}

const released = report(`
// @public
export interface Store {
    get(id: string): Promise<string | null>;
    put(id: string, value: string): Promise<void>;
}

// @public
export type Kind = 'a' | 'b';
`);

let dir: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'commit.gpgsign=false', ...args], { cwd, env: gitEnv, encoding: 'utf8' });
}

function write(path: string, text: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}

function packageJson(version: string): string {
  return `${JSON.stringify({ name: 'pkg-a', version }, null, 2)}\n`;
}

function runGate(cwd = dir, ...args: string[]) {
  const result = spawnSync(tsx, [gate, ...args], { cwd, env: gitEnv, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'semver-gate-'));
  git(dir, 'init', '-q', '-b', 'main');
  write('packages/pkg-a/package.json', packageJson('1.0.0'));
  write('packages/pkg-a/etc/pkg-a.api.md', released);
  write('.changeset/README.md', 'Changesets.\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'first');
  write('packages/pkg-a/package.json', packageJson('1.1.0'));
  git(dir, 'commit', '-q', '-am', 'release: version 1.1.0');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('pnpm semver:check', () => {
  it('passes an unchanged API and says which release it compared with', () => {
    const release = git(dir, 'rev-parse', '--short=7', 'HEAD').trim();
    const { status, stdout } = runGate();
    expect(stdout).toContain(
      `ok   pkg-a: no line removed or changed; compared with 1.1.0 (${release}, the version bump in ${release} (release: version 1.1.0))`,
    );
    expect(status).toBe(0);
  });

  it('passes additions', () => {
    write(
      'packages/pkg-a/etc/pkg-a.api.md',
      released.replace('}\n', '    delete?(id: string): Promise<boolean>;\n}\n'),
    );
    write('packages/pkg-a/etc/pkg-a-extra.api.md', report('// @public\nexport type Extra = string;'));
    expect(runGate().status).toBe(0);
  });

  it('fires on a removed line and a changed line, naming the package, the lines and what to do', () => {
    write(
      'packages/pkg-a/etc/pkg-a.api.md',
      released
        .replace('    put(id: string, value: string): Promise<void>;\n', '')
        .replace("export type Kind = 'a' | 'b';", "export type Kind = 'a' | 'b' | 'c';"),
    );
    const { status, stdout } = runGate();
    expect(stdout).toContain('FAIL pkg-a: 2 line(s) removed or changed with no major changeset for it');
    expect(stdout).toContain(
      'in pkg-a.api.md: interface Store\n      - put(id: string, value: string): Promise<void>;',
    );
    expect(stdout).toContain(
      "in pkg-a.api.md: type Kind\n      - export type Kind = 'a' | 'b';\n      + export type Kind = 'a' | 'b' | 'c';",
    );
    expect(stdout).toContain('add a changeset that bumps the package major (pnpm changeset)');
    expect(status).toBe(1);
  });

  it('passes a removed line with a pending major changeset for the package', () => {
    write(
      'packages/pkg-a/etc/pkg-a.api.md',
      released.replace('    put(id: string, value: string): Promise<void>;\n', ''),
    );
    write('.changeset/drop-put.md', '---\n"pkg-a": minor\n---\n\nNot major.\n');
    expect(runGate().status).toBe(1);
    write('.changeset/drop-put.md', '---\n"pkg-a": major\n---\n\nStore.put is gone: use …\n');
    const { status, stdout } = runGate();
    expect(stdout).toContain(
      'ok   pkg-a: 1 line(s) removed or changed, and .changeset/drop-put.md bumps it major',
    );
    expect(status).toBe(0);
  });

  it('passes an acknowledged change, prints the entries to fill in, and fails a stale acknowledgement', () => {
    write('packages/pkg-a/etc/pkg-a.api.md', released.replace("'a' | 'b';", "'a' | 'b' | 'c';"));
    const entries = runGate(dir, '--entries');
    expect(entries.status).toBe(1);
    const printed = JSON.parse(entries.stdout.slice(entries.stdout.lastIndexOf('\n{') + 1));
    expect(printed).toEqual({
      'pkg-a': [
        {
          report: 'pkg-a.api.md',
          line: "export type Kind = 'a' | 'b';",
          reason: 'TODO: why this is compatible',
        },
      ],
    });
    printed['pkg-a'][0].reason =
      'Kind only ever reaches users; a new kind does not break handling the old ones.';
    write(
      '.changeset/compatible-changes.json',
      JSON.stringify({ $comment: 'emptied at each release', ...printed }),
    );
    const acknowledged = runGate();
    expect(acknowledged.stdout).toContain('ok   pkg-a: 1 line(s) changed, each acknowledged as compatible');
    expect(acknowledged.status).toBe(0);

    write('packages/pkg-a/etc/pkg-a.api.md', released);
    const stale = runGate();
    expect(stale.stdout).toContain('FAIL 1 stale acknowledgement(s) in .changeset/compatible-changes.json');
    expect(stale.status).toBe(1);
  });

  it('cannot judge with a malformed acknowledgements file (exit 2)', () => {
    write(
      '.changeset/compatible-changes.json',
      JSON.stringify({ 'pkg-a': [{ report: 'pkg-a.api.md', line: 'x;' }] }),
    );
    const { status, stderr } = runGate();
    expect(stderr).toContain('"pkg-a" entry 1: "reason" must say why the change is compatible');
    expect(status).toBe(2);
  });

  it('fails on a shallow clone, saying why (exit 2)', () => {
    const shallow = `${dir}-shallow`;
    try {
      git(dir, 'clone', '-q', '--depth', '1', `file://${dir}`, shallow);
      const { status, stderr } = runGate(shallow);
      expect(stderr).toContain('this is a shallow clone');
      expect(status).toBe(2);
    } finally {
      rmSync(shallow, { recursive: true, force: true });
    }
  });
});
