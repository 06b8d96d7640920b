// The packed packages must come from the tarballs, never from the registry (a package of the same name
// there would otherwise be tested instead), and exist once (no nested copy of tenant-auth-core).
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = __dirname;
const packages = JSON.parse(readFileSync(join(dir, 'packages.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')).packages;
const problems = [];
for (const [path, entry] of Object.entries(lock)) {
  const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  if (!packages.includes(name)) continue;
  if (path !== `node_modules/${name}`) problems.push(`nested copy of ${name} at ${path} (${entry.resolved})`);
  else if (!String(entry.resolved).startsWith('file:'))
    problems.push(`${name} resolved from ${entry.resolved}`);
}
for (const name of packages) {
  if (!existsSync(join(dir, 'node_modules', name, 'package.json'))) problems.push(`${name} is not installed`);
}
for (const problem of problems) console.log(`FAIL ${problem}`);
if (problems.length === 0)
  console.log(`ok   ${packages.join(', ')} installed from the tarballs, one copy each`);
process.exitCode = problems.length > 0 ? 1 : 0;
