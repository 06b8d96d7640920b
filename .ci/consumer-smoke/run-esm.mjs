// ES module consumer: import() every entry point.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { entries, stale } = require('./entries.cjs');
const { checkModule, report } = require('./check-runtime.cjs');

const results = [];
for (const { spec, names } of entries) {
  try {
    const mod = await import(spec);
    results.push({
      spec,
      problems: checkModule(spec, mod, names),
      note: names ? undefined : 'no expected names',
    });
  } catch (error) {
    results.push({ spec, problems: [`import failed: ${error.message.split('\n')[0]}`] });
  }
}
report('import ', results, stale);
