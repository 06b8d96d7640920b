#!/usr/bin/env node
// Every public export of every published package has JSDoc with an example.
//
//   node scripts/check-docs.mjs
//
// For each package under packages/ and each entry point of its package.json "exports" (src/<name>.ts or
// src/<name>/index.ts, src/index.ts for "."), it lists what the entry exports, follows re-exports to the
// declaration, and fails naming every export whose declaration has no JSDoc text or no @example tag.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '..');
const packagesDir = join(root, 'packages');

function entryFiles(pkgDir) {
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const files = [];
  for (const subpath of Object.keys(pkg.exports ?? { '.': null })) {
    if (subpath === './package.json') continue;
    const name = subpath === '.' ? 'index' : subpath.slice(2);
    const candidates = [join(pkgDir, 'src', `${name}.ts`), join(pkgDir, 'src', name, 'index.ts')];
    const file = candidates.find((c) => existsSync(c));
    if (!file) throw new Error(`${pkg.name}: no source file for export ${subpath}`);
    files.push({ entry: subpath === '.' ? pkg.name : `${pkg.name}/${name}`, file });
  }
  return files;
}

const entries = readdirSync(packagesDir)
  .map((name) => join(packagesDir, name))
  .filter((dir) => existsSync(join(dir, 'package.json')))
  .flatMap(entryFiles);

const config = ts.getParsedCommandLineOfConfigFile(
  join(root, 'tsconfig.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  },
);
const program = ts.createProgram(
  entries.map((e) => e.file),
  config.options,
);
const checker = program.getTypeChecker();

const problems = [];
let checked = 0;
for (const { entry, file } of entries) {
  const source = program.getSourceFile(file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`cannot read ${file}`);
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    checked++;
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
    const tags = symbol.getJsDocTags(checker).map((t) => t.name);
    const missing = [];
    if (text === '') missing.push('a description');
    if (!tags.includes('example')) missing.push('an @example');
    if (tags.includes('internal')) missing.push('(it is marked @internal but exported)');
    if (missing.length > 0) problems.push(`${entry}: ${exported.name} lacks ${missing.join(' and ')}`);
  }
}

if (problems.length > 0) {
  console.error(
    `check-docs: ${problems.length} of ${checked} public exports are not documented with an example:`,
  );
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(
  `check-docs: all ${checked} public exports of ${entries.length} entry points have JSDoc with an example`,
);
