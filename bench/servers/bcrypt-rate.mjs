// The baseline of the password benchmarks: raw bcrypt operations per second, with the bcrypt package
// tenant-auth-core uses, in a fresh process. Counted like the HTTP side (bench/lib/harness.mjs,
// closedLoop): from the completion that opens the window (after `concurrency` completions) to the last
// completion within BENCH_BCRYPT_SECONDS. Also the process's CPU seconds over that span.
// BENCH_BCRYPT_MODE=compare|hash, BENCH_BCRYPT_COST, BENCH_BCRYPT_CONCURRENCY, BENCH_BCRYPT_SECONDS.
// Prints {"ops", "seconds", "perSecond", "cpuSeconds", "perCpuSecond"} on one line.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT } from '../lib/harness.mjs';

const bcrypt = createRequire(join(ROOT, 'packages', 'tenant-auth-core', 'package.json'))('bcrypt');
const mode = process.env.BENCH_BCRYPT_MODE ?? 'compare';
const cost = Number(process.env.BENCH_BCRYPT_COST ?? 12);
const concurrency = Number(process.env.BENCH_BCRYPT_CONCURRENCY ?? 3);
const seconds = Number(process.env.BENCH_BCRYPT_SECONDS ?? 5);

// What core hands bcrypt: a 44-character base64 pre-hash of the password.
const input = 'q3Jx0m9cV2b7ZpL1s8Rk4Tn6Wy5Ae0Hd9Gf2Uj7Ko3M=';
const hash = await bcrypt.hash(input, cost);
const op = mode === 'hash' ? () => bcrypt.hash(input, cost) : () => bcrypt.compare(input, hash);

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
let completions = 0;
let counted = 0;
let windowStart = null;
let windowEnd = Number.POSITIVE_INFINITY;
let lastT = null;
let cpuStart = 0;
let cpuLast = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (performance.now() < windowEnd) {
      await op();
      const t = performance.now();
      completions++;
      if (windowStart !== null && t <= windowEnd) {
        counted++;
        lastT = t;
        cpuLast = cpu();
      }
      if (completions === concurrency) {
        windowStart = t;
        windowEnd = t + seconds * 1000;
        cpuStart = cpu();
      }
    }
  }),
);
const span = lastT === null ? seconds : (lastT - windowStart) / 1000;
const cpuSeconds = cpuLast - cpuStart;
console.log(
  JSON.stringify({
    ops: counted,
    seconds: span,
    perSecond: counted / span,
    cpuSeconds,
    perCpuSecond: counted / cpuSeconds,
  }),
);
