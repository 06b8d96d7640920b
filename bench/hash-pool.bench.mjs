// Does a login flood stall token verification? bcrypt runs on libuv's thread pool (4 threads by
// default), and so do the WebCrypto HMAC operations jose uses to verify HS256 tokens. The password
// hasher caps concurrent hashes at max(1, UV_THREADPOOL_SIZE - 1) so one thread stays free.
//
// Measures the latency of verifyAccessToken (sequential, one at a time) in three phases, interleaved
// over several rounds of one run:
//   idle       no hashing going on (the baseline)
//   unbounded  while 40 bcrypt hashes run through a hasher with no cap (maxConcurrent 1000)
//   bounded    while 40 bcrypt hashes run through the default hasher (cap 3, queue 100)
// and prints each phase's p50/p99/max and their ratios to the idle phase. The max is the figure that
// matters: a verification whose crypto job queues behind bcrypt jobs waits for them to finish.
// BENCH_ALGORITHM=HS256|ES256 (default ES256), BENCH_BCRYPT_COST (10), BENCH_ROUNDS (3).
import { generateKeyPairSync } from 'node:crypto';
import { createPasswordHasher, createTokenService } from '../packages/tenant-auth-core/dist/index.js';

const COST = Number(process.env.BENCH_BCRYPT_COST ?? 10);
const FLOOD = 40;
const SAMPLES = 200;

const ALGORITHM = process.env.BENCH_ALGORITHM ?? 'ES256';
const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const tokens = createTokenService({
  issuer: 'bench',
  audience: 'bench',
  accessToken:
    ALGORITHM === 'HS256'
      ? { secret: 'bench-access-secret-0123456789abcdef' }
      : { algorithm: 'ES256', keys: [{ kid: 'k', privateKey: pair.privateKey, publicKey: pair.publicKey }] },
  refreshSecret: 'bench-refresh-secret-0123456789abcdef',
});
const { token } = await tokens.signAccessToken({ userId: 'u', tenantId: 't', sessionId: 's' });

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function measure(samples, keepGoing = () => true) {
  const times = [];
  for (let i = 0; i < samples && keepGoing(); i++) {
    const t0 = process.hrtime.bigint();
    await tokens.verifyAccessToken(token);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return times;
}

async function underFlood(makeHasher) {
  const hasher = makeHasher();
  let done = false;
  const flood = Promise.allSettled(
    Array.from({ length: FLOOD }, (_, i) => hasher.hash(`flood-password-${i}`)),
  ).then(() => {
    done = true;
  });
  await new Promise((r) => setTimeout(r, 5)); // let the flood occupy the pool
  const times = await measure(SAMPLES, () => !done);
  await flood;
  return times;
}

function summary(times) {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted[sorted.length - 1],
  };
}

await measure(50); // warm up jose and the key
const phases = { idle: [], unbounded: [], bounded: [] };
// Interleaved rounds, so a burst of noise from the shared machine hits every phase alike.
for (let round = 0; round < ROUNDS; round++) {
  phases.idle.push(...(await measure(SAMPLES)));
  phases.unbounded.push(
    ...(await underFlood(() => createPasswordHasher({ cost: COST, maxConcurrent: 1000, maxQueue: 1000 }))),
  );
  phases.bounded.push(...(await underFlood(() => createPasswordHasher({ cost: COST }))));
}

const idle = summary(phases.idle);
const fmt = (x) => x.toFixed(2).padStart(8);
console.log(
  `${ALGORITHM} access tokens, UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? '4 (default)'}, bcrypt cost ${COST}, ${FLOOD} concurrent hashes, ${ROUNDS} rounds`,
);
console.log('phase       samples   p50 ms   p99 ms   max ms  p50/idle  p99/idle  max/idle');
for (const [name, times] of Object.entries(phases)) {
  const r = summary(times);
  console.log(
    `${name.padEnd(11)} ${String(r.n).padStart(7)} ${fmt(r.p50)} ${fmt(r.p99)} ${fmt(r.max)} ${(r.p50 / idle.p50).toFixed(1).padStart(9)} ${(r.p99 / idle.p99).toFixed(1).padStart(9)} ${(r.max / idle.max).toFixed(1).padStart(9)}`,
  );
}
