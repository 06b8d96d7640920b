#!/usr/bin/env node
// (Re)creates the "stub folders" that make a package's subpath entry points resolve for tools that do not
// read package.json "exports" (TypeScript's moduleResolution node10, old bundlers and test runners): for
// an export "./testing" it writes testing/package.json with main/module/types pointing into dist, the
// same targets as the exports map's require (main, types) and import (module) conditions.
//
//   node ../../scripts/entry-stubs.mjs          # in a package folder (each package's build runs this)
//   node scripts/entry-stubs.mjs packages/*     # or name the package folders
//
// Stub folders of subpaths that left the exports map are removed. Fails when a stub folder is missing
// from the package's "files", since the stub would then not be published.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The stub's package.json for one export, or undefined when the export is not a require/import pair. */
function stubFor(target) {
  if (target === null || typeof target !== 'object') return undefined;
  const pick = (condition) => {
    const value = target[condition];
    if (typeof value === 'string') return { default: value };
    if (value && typeof value === 'object') return { default: value.default, types: value.types };
    return undefined;
  };
  const req = pick('require') ?? pick('default');
  const imp = pick('import');
  if (!req?.default) return undefined;
  const up = (path) => (path ? `../${path.replace(/^\.\//, '')}` : undefined);
  const stub = { main: up(req.default) };
  if (imp?.default) stub.module = up(imp.default);
  const types = req.types ?? target.types;
  if (typeof types === 'string') stub.types = up(types);
  return stub;
}

/** A folder this script made: nothing in it but a package.json whose main points into ../dist. */
function isStubFolder(dir) {
  try {
    const entries = readdirSync(dir);
    if (entries.length !== 1 || entries[0] !== 'package.json') return false;
    const main = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).main;
    return typeof main === 'string' && main.startsWith('../dist/');
  } catch {
    return false;
  }
}

function run(packageDir) {
  const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const exportsMap = pkg.exports && typeof pkg.exports === 'object' ? pkg.exports : {};
  const files = Array.isArray(pkg.files)
    ? pkg.files.map((f) => f.replace(/^\.\//, '').replace(/\/$/, ''))
    : [];
  const wanted = new Map();
  const problems = [];
  for (const [subpath, target] of Object.entries(exportsMap)) {
    if (subpath === '.' || !subpath.startsWith('./') || subpath.endsWith('.json')) continue;
    const folder = subpath.slice(2);
    if (folder.includes('*')) {
      problems.push(`${subpath}: pattern exports get no stub folder`);
      continue;
    }
    const stub = stubFor(target);
    if (!stub) {
      problems.push(`${subpath}: no require/import target to point a stub at`);
      continue;
    }
    wanted.set(folder, stub);
    if (!files.includes(folder) && !files.includes(folder.split('/')[0])) {
      problems.push(`${subpath}: add "${folder.split('/')[0]}" to "files" so the stub folder is published`);
    }
  }

  for (const [folder, stub] of wanted) {
    const dir = join(packageDir, folder);
    const file = join(dir, 'package.json');
    const text = `${JSON.stringify(stub, null, 2)}\n`;
    if (existsSync(file) && readFileSync(file, 'utf8') === text) continue;
    if (existsSync(dir) && !isStubFolder(dir) && readdirSync(dir).length > 0) {
      problems.push(`${folder}/ exists and is not a stub folder; refusing to write into it`);
      continue;
    }
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, text);
    console.log(`entry-stubs: ${pkg.name}: wrote ${folder}/package.json`);
  }

  for (const entry of readdirSync(packageDir, { withFileTypes: true })) {
    if (!entry.isDirectory() || wanted.has(entry.name) || entry.name === 'dist') continue;
    const dir = join(packageDir, entry.name);
    if (isStubFolder(dir)) {
      rmSync(dir, { recursive: true });
      console.log(`entry-stubs: ${pkg.name}: removed ${entry.name}/ (no longer exported)`);
    }
  }

  for (const problem of problems) console.error(`entry-stubs: ${pkg.name}: ${problem}`);
  return problems.length === 0;
}

const dirs = process.argv.slice(2);
const ok = (dirs.length > 0 ? dirs : ['.']).map((dir) => run(resolve(dir))).every(Boolean);
process.exitCode = ok ? 0 : 1;
