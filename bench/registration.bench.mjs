// Registration throughput: registrations per second over HTTP (POST /api/v1/auth/register on the reference
// server, PostgreSQL, bcrypt at BENCH_BCRYPT_COST, default 12; every one a new tenant and user) against raw
// bcrypt hashes per second at the same cost, 3 at once (the hashing pool's concurrency) in a fresh process. A
// registration is one bcrypt hash plus the password policy, one transaction (tenant, user, session) and two
// JWT signatures. Two interleaved rounds, the second in reverse order; the CPU-time ratio is reported beside
// it.
import { randomBytes } from 'node:crypto';
import {
  addRow,
  BCRYPT_COST,
  bcryptRate,
  clientAddress,
  closedLoop,
  createThrowawayDatabase,
  DURATION,
  inRounds,
  main,
  postgresProblem,
  skipRow,
  startReferenceServer,
  sumRounds,
} from './lib/harness.mjs';

const CONNECTIONS = 8;
const POOL = 3;
const SECONDS = Math.max(DURATION, 6);
const ROUNDS = 2;
const TARGET = 0.8;

await main(async () => {
  const problem = await postgresProblem();
  if (problem) {
    skipRow('registration.throughput', 'registration throughput', problem, `>= ${TARGET}`);
    return;
  }
  const db = await createThrowawayDatabase('register');
  const server = await startReferenceServer({ databaseUrl: db.url });
  const url = `${server.url}/api/v1/auth/register`;
  const run = randomBytes(3).toString('hex');
  const password = `Lattice-${randomBytes(9).toString('hex')}-97`;
  const request = (i) => ({
    url,
    method: 'POST',
    body: { email: `r${run}-${i}@bench.example.com`, password, tenantName: `Org ${run} ${i}` },
    headers: { 'x-forwarded-for': clientAddress(i) },
  });
  let n = 1_000_000;
  const baseline = [];
  const measured = [];
  await inRounds(
    {
      baseline: async () =>
        baseline.push(await bcryptRate({ mode: 'hash', concurrency: POOL, seconds: SECONDS / ROUNDS })),
      measured: async () =>
        measured.push(
          await closedLoop({
            concurrency: CONNECTIONS,
            seconds: SECONDS / ROUNDS,
            request: () => request(n++),
            pid: server.pid,
          }),
        ),
    },
    ROUNDS,
  );
  await server.stop();
  await db.drop();
  const r = sumRounds(measured);
  const b = sumRounds(baseline);
  if (r.failures > 0)
    throw new Error(`register: ${r.failures} failures ${JSON.stringify(measured.map((m) => m.statuses))}`);
  addRow({
    id: 'registration.throughput',
    benchmark: `registration throughput: POST /auth/register, PostgreSQL, bcrypt cost ${BCRYPT_COST}, ${CONNECTIONS} in flight`,
    measured: `${r.rps.toFixed(2)}/s (${r.perCpuSecond.toFixed(2)}/s per server core)`,
    baseline: `bcrypt hashes, ${POOL} at once: ${b.rps.toFixed(2)}/s (${b.perCpuSecond.toFixed(2)}/s per core)`,
    ratio: r.rps / b.rps,
    target: `>= ${TARGET}`,
    check: (x) => x >= TARGET,
    details: { cpuRatio: r.perCpuSecond / b.perCpuSecond, http: measured, baseline, cost: BCRYPT_COST },
  });
});
