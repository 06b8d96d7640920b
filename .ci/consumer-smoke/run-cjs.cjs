// CommonJS consumer: require() every entry point.
const { entries, stale } = require('./entries.cjs');
const { checkModule, report } = require('./check-runtime.cjs');

const results = entries.map(({ spec, names }) => {
  try {
    const mod = require(spec);
    return { spec, problems: checkModule(spec, mod, names), note: names ? undefined : 'no expected names' };
  } catch (error) {
    return { spec, problems: [`require failed: ${error.message.split('\n')[0]}`] };
  }
});
report('require', results, stale);
