// Checks one loaded entry point: the expected names are functions, or, for an entry point without
// expectations, that it exports at least one function. Returns a list of problems.
function checkModule(spec, mod, names) {
  const problems = [];
  if (mod === null || (typeof mod !== 'object' && typeof mod !== 'function')) {
    return [`${spec} loaded as ${typeof mod}`];
  }
  if (names) {
    for (const name of names) {
      if (typeof mod[name] !== 'function')
        problems.push(`${spec}: ${name} is ${typeof mod[name]}, not a function`);
    }
  } else if (!Object.values(mod).some((value) => typeof value === 'function')) {
    problems.push(`${spec}: no function among its exports (${Object.keys(mod).join(', ') || 'none'})`);
  }
  return problems;
}

function report(label, results, stale) {
  let failed = 0;
  for (const { spec, problems, note } of results) {
    if (problems.length > 0) failed++;
    console.log(`${problems.length > 0 ? 'FAIL' : 'ok  '} ${label} ${spec}${note ? ` (${note})` : ''}`);
    for (const problem of problems) console.log(`       ${problem}`);
  }
  for (const spec of stale) {
    failed++;
    console.log(`FAIL ${label} ${spec}: in expected-exports.json but no package exports it`);
  }
  process.exitCode = failed > 0 ? 1 : 0;
}

module.exports = { checkModule, report };
