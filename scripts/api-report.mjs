#!/usr/bin/env node
// API reports: one API Extractor run per entry point of every package under packages/ (API Extractor takes
// one entry point per run), on the built ESM declarations, so run `pnpm build` first.
//
//   node scripts/api-report.mjs           # pnpm api:check: fails when a report differs from the code
//   node scripts/api-report.mjs --local   # pnpm api:update: rewrites the reports under packages/*/etc/
//
// Reports: packages/<pkg>/etc/<pkg>.api.md for ".", <pkg>-<subpath>.api.md for "./<subpath>". A type that
// the surface uses but no entry point of its package exports fails the run (ae-forgotten-export); one that
// a sibling entry point exports (the store interfaces of tenant-auth-core/store-kit, seen from the main
// entry) is fine: API Extractor reads one entry point at a time and cannot know.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const localBuild = process.argv.includes('--local');
const require = createRequire(import.meta.url);
// Analyse with the workspace's TypeScript (the one that emitted the declarations), not API Extractor's own.
const typescriptCompilerFolder = dirname(require.resolve('typescript/package.json'));
const tempRoot = join(tmpdir(), `tenant-auth-api-report-${process.pid}`);

/** The built ESM declaration file of an export target, or undefined. */
function esmTypesOf(target) {
  if (typeof target === 'string') return target.endsWith('.d.ts') ? target : undefined;
  if (target === null || typeof target !== 'object') return undefined;
  if (typeof target.import === 'object' && typeof target.import?.types === 'string')
    return target.import.types;
  if (typeof target.types === 'string') return target.types;
  return esmTypesOf(target.import) ?? esmTypesOf(target.default);
}

/** Every (package, entry point) pair, from each package.json "exports". */
function entryPoints() {
  const entries = [];
  const problems = [];
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    const packageDir = join(root, 'packages', dir);
    const packageJsonPath = join(packageDir, 'package.json');
    if (!existsSync(packageJsonPath)) continue;
    const pkg = JSON.parse(readFileSync(packageJsonPath, 'utf8'));
    const unscoped = pkg.name.replace(/^@[^/]+\//, '');
    const exportsMap =
      typeof pkg.exports === 'object' && pkg.exports !== null ? pkg.exports : { '.': pkg.exports };
    for (const [subpath, target] of Object.entries(exportsMap)) {
      if (subpath === './package.json') continue;
      const label = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;
      const types = esmTypesOf(target);
      if (!types) {
        problems.push(`${label}: no ESM "types" target in exports`);
        continue;
      }
      const reportName = subpath === '.' ? unscoped : `${unscoped}-${subpath.slice(2).replaceAll('/', '-')}`;
      entries.push({ label, packageDir, packageJsonPath, dts: resolve(packageDir, types), reportName });
    }
  }
  return { entries, problems };
}

/** Names a built declaration file exports (`export { A, B as C, type D }` and `export declare ...`). */
function exportedNames(dts) {
  if (!existsSync(dts)) return [];
  const text = readFileSync(dts, 'utf8');
  const names = [];
  for (const [, list] of text.matchAll(/export\s*(?:type\s*)?\{([^}]*)\}/g)) {
    for (const item of list.split(',')) {
      const name = item
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (name) names.push(name);
    }
  }
  for (const [, name] of text.matchAll(
    /export\s+declare\s+(?:const|function|class|type|interface|enum)\s+(\w+)/g,
  ))
    names.push(name);
  for (const [, name] of text.matchAll(/export\s+(?:type|interface)\s+(\w+)/g)) names.push(name);
  return names;
}

function run({ label, packageDir, packageJsonPath, dts, reportName }, siblingExports) {
  if (!existsSync(dts)) {
    return { label, ok: false, note: `${relative(root, dts)} is missing: run pnpm build first` };
  }
  const reportFolder = join(packageDir, 'etc');
  mkdirSync(reportFolder, { recursive: true });
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: packageDir,
      mainEntryPointFilePath: dts,
      bundledPackages: [],
      newlineKind: 'lf',
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2023',
            lib: ['ES2023'],
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            skipLibCheck: true,
            types: ['node'],
          },
          files: [dts],
        },
      },
      apiReport: {
        enabled: true,
        reportFolder,
        reportTempFolder: join(tempRoot, reportName),
        reportFileName: reportName,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        extractorMessageReporting: {
          // Findings about a declaration go into the report next to it (reviewed in the diff); api:check then
          // fails on the report changing, not on a finding it already shows. Others are printed and fail it.
          default: { logLevel: 'warning', addToApiReportFile: true },
          // Members without doc comments are common and fine (the report is about the shape, not the docs).
          'ae-undocumented': { logLevel: 'none', addToApiReportFile: false },
          // No @public/@beta tags on this surface: every export is public.
          'ae-missing-release-tag': { logLevel: 'none', addToApiReportFile: false },
          // Referenced but not exported: judged below (fine when a sibling entry point exports it).
          'ae-forgotten-export': { logLevel: 'warning', addToApiReportFile: false },
        },
        // Doc comments are written for editors (JSDoc), not checked against TSDoc's grammar.
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: packageJsonPath,
  });
  const messages = [];
  let unexported = 0;
  const committedPath = join(reportFolder, `${reportName}.api.md`);
  const committed = existsSync(committedPath) ? readFileSync(committedPath, 'utf8') : undefined;
  const result = Extractor.invoke(config, {
    localBuild,
    typescriptCompilerFolder,
    printApiReportDiff: !localBuild,
    messageCallback(message) {
      // API Extractor's own chatter ("Analysis will use …") stays quiet; everything else is printed below.
      if (message.logLevel === ExtractorLogLevel.Info || message.logLevel === ExtractorLogLevel.Verbose) {
        message.handled = true;
        return;
      }
      if (message.messageId === 'ae-forgotten-export') {
        message.handled = true;
        const symbol = /The symbol "([^"]+)"/.exec(message.text)?.[1];
        if (symbol !== undefined && siblingExports.has(symbol)) return;
        unexported++;
        messages.push(
          `  error: ${message.formatMessageWithLocation(packageDir)} (no entry point of the package exports it)`,
        );
        return;
      }
      if (message.logLevel === ExtractorLogLevel.Warning || message.logLevel === ExtractorLogLevel.Error) {
        message.handled = true;
        messages.push(`  ${message.logLevel}: ${message.formatMessageWithLocation(packageDir)}`);
      }
    },
  });
  // The members of a zod enum's object type (`z.ZodEnum<{ a: "a"; b: "b" }>`) come out of the declaration
  // build in the order the compiler happened to create their literal types, which changes from one build
  // to the next; the order of an object type's members is no part of the API. A report that differs only
  // in that order is the same report (and `api:update` keeps the committed one).
  const generatedPath = localBuild ? committedPath : join(tempRoot, reportName, `${reportName}.api.md`);
  if (result.apiReportChanged && committed !== undefined && existsSync(generatedPath)) {
    if (sameUpToEnumOrder(committed, readFileSync(generatedPath, 'utf8'))) {
      result.apiReportChanged = false;
      if (localBuild) writeFileSync(committedPath, committed);
    }
  }
  const reportPath = relative(root, committedPath);
  let note;
  if (unexported > 0) note = `${unexported} type(s) used by the surface but exported by no entry point`;
  else if (result.errorCount > 0) note = `${result.errorCount} error(s)`;
  else if (result.apiReportChanged)
    note = localBuild ? `updated ${reportPath}` : `${reportPath} differs from the code`;
  else note = `${reportPath} is up to date`;
  const ok =
    unexported === 0 &&
    (localBuild ? result.errorCount === 0 : result.errorCount === 0 && !result.apiReportChanged);
  return { label, ok, note, messages };
}

/** Whether two reports differ at most in the order of runs of enum members (`    name: "name";`). */
function sameUpToEnumOrder(a, b) {
  const normalise = (text) => {
    const out = [];
    let run = [];
    const flush = () => {
      out.push(...run.sort());
      run = [];
    };
    for (const line of text.split('\n')) {
      if (/^\s+(\w+): "\1";$/.test(line)) run.push(line);
      else {
        flush();
        out.push(line);
      }
    }
    flush();
    return out.join('\n');
  };
  return normalise(a) === normalise(b);
}

const { entries, problems } = entryPoints();
const exportsByPackage = new Map();
for (const entry of entries) {
  const names = exportsByPackage.get(entry.packageDir) ?? new Set();
  for (const name of exportedNames(entry.dts)) names.add(name);
  exportsByPackage.set(entry.packageDir, names);
}
const results = entries.map((entry) => run(entry, exportsByPackage.get(entry.packageDir)));
rmSync(tempRoot, { recursive: true, force: true });
for (const { label, ok, note, messages } of results) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label}: ${note}`);
  for (const line of messages ?? []) console.log(line);
}
for (const problem of problems) console.log(`FAIL ${problem}`);
const failed = results.filter((r) => !r.ok).length + problems.length;
console.log(
  `\napi-report: ${results.length} entry point(s), ${failed} failed` +
    (failed > 0 && !localBuild
      ? ': if the change is intended, run pnpm api:update and commit the reports'
      : ''),
);
process.exitCode = failed > 0 ? 1 : 0;
