// Runs every bench/*.bench.mjs in turn against the built packages (run `pnpm build` first).
// Each benchmark measures its own baseline in the same run and prints ratios: this machine is shared
// and noisy, so absolute numbers from different runs are not comparable.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
let failed = false;
for (const file of readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .sort()) {
  if (only && !file.includes(only)) continue;
  console.log(`\n## ${file}`);
  const r = spawnSync(process.execPath, [join(here, file)], { stdio: 'inherit' });
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
