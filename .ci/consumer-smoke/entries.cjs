// The entry points to check: every subpath of every packed package's exports map (read from the installed
// copy under node_modules, i.e. what npm consumers get), except package.json. Used by every step.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = __dirname;
const packages = JSON.parse(readFileSync(join(dir, 'packages.json'), 'utf8'));
const expected = JSON.parse(readFileSync(join(dir, 'expected-exports.json'), 'utf8'));
delete expected['//'];

const entries = [];
for (const name of packages) {
  const pkg = JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8'));
  const subpaths = pkg.exports && typeof pkg.exports === 'object' ? Object.keys(pkg.exports) : ['.'];
  for (const subpath of subpaths) {
    if (subpath.endsWith('.json') || subpath.includes('*')) continue;
    const spec = subpath === '.' ? name : `${name}/${subpath.slice(2)}`;
    entries.push({ spec, names: expected[spec] });
  }
}
// Expectations for an entry point that no package exports any more are stale: report them too.
const stale = Object.keys(expected).filter((spec) => !entries.some((e) => e.spec === spec));

module.exports = { entries, stale };
