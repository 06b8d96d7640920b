// Authenticated read on the reference server (PostgreSQL): GET /api/v1/health and GET /api/v1/tenants/me
// with a bearer token, 50 connections, against the ceiling measured in the same run: bare Koa (the
// server's own Koa and Node) answering a constant JSON body on GET /. The phases are interleaved in six
// turns (ceiling, health, me, me, health, ceiling, ...), so drift and bursts of the shared machine hit
// every side alike. The load generator (autocannon) runs in this process, on the same cores, for every phase alike.
// Reported beside them: the contract's floor (bench/servers/contract-floor-koa.mjs: what an authenticated
// GET /health must do on every answer, hand-written in one Koa middleware), and GET /tenants/me by 50
// users of 50 tenants, a token per connection (the reads of one tenant share a round trip; of 50, less so).
import { fileURLToPath } from 'node:url';
import {
  addRow,
  assertClean,
  createThrowawayDatabase,
  fmt,
  interleaved,
  main,
  postgresProblem,
  registerUser,
  skipRow,
  startReferenceServer,
  startScript,
} from './lib/harness.mjs';

const CONNECTIONS = 50;
// Issue 43's targets (0.5 for /health before it; /tenants/me was reported only).
const TARGET_HEALTH = 0.6;
const TARGET_ME = 0.35;

await main(async () => {
  const problem = await postgresProblem();
  if (problem) {
    skipRow('read.health', 'authenticated read: GET /api/v1/health', problem, `>= ${TARGET_HEALTH}`);
    skipRow('read.tenants-me', 'authenticated read: GET /api/v1/tenants/me', problem, `>= ${TARGET_ME}`);
    skipRow('read.contract-floor', 'the floor of an authenticated read on Koa', problem, 'report');
    skipRow(
      'read.tenants-me-tenants',
      'authenticated read: GET /api/v1/tenants/me, a tenant per connection',
      problem,
      'report',
    );
    return;
  }
  const db = await createThrowawayDatabase('read');
  const server = await startReferenceServer({ databaseUrl: db.url });
  const user = await registerUser(server.url, 'read');
  const headers = { authorization: `Bearer ${user.accessToken}` };
  // The same read by as many users of as many tenants as there are connections, each connection its own
  // token: what the reads of one tenant share (the same row in the same round trip) left out.
  const tokens = await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => (await registerUser(server.url, 'read')).accessToken),
  );
  let nextToken = 0;
  const ownToken = (client) =>
    client.setHeaders({ authorization: `Bearer ${tokens[nextToken++ % tokens.length]}` });
  const ceilingApp = await startScript(fileURLToPath(new URL('./servers/bare-koa.mjs', import.meta.url)));
  const floorApp = await startScript(
    fileURLToPath(new URL('./servers/contract-floor-koa.mjs', import.meta.url)),
  );

  const r = await interleaved({
    ceiling: { options: { url: `${ceilingApp.url}/`, connections: CONNECTIONS }, pid: ceilingApp.pid },
    floor: { options: { url: `${floorApp.url}/`, headers, connections: CONNECTIONS }, pid: floorApp.pid },
    health: {
      options: { url: `${server.url}/api/v1/health`, headers, connections: CONNECTIONS },
      pid: server.pid,
    },
    me: {
      options: { url: `${server.url}/api/v1/tenants/me`, headers, connections: CONNECTIONS },
      pid: server.pid,
    },
    meTenants: {
      options: { url: `${server.url}/api/v1/tenants/me`, setupClient: ownToken, connections: CONNECTIONS },
      pid: server.pid,
    },
  });
  await ceilingApp.stop();
  await floorApp.stop();
  await server.stop();
  await db.drop();
  assertClean('ceiling', r.ceiling);
  assertClean('contract floor', r.floor);
  assertClean('health', r.health);
  assertClean('tenants/me', r.me);
  assertClean(`tenants/me, ${CONNECTIONS} tenants`, r.meTenants);

  // Server CPU per answer, beside the throughput: steadier than it when the shared machine is busy (the
  // ceiling's rate also depends on how much of the cores the load generator gets).
  const cpuUs = (phase) => `${(1e6 / phase.perCpuSecond).toFixed(1)} µs CPU each`;
  const baseline = `bare Koa GET / ${fmt.rps(r.ceiling.rps)} (${cpuUs(r.ceiling)})`;
  addRow({
    id: 'read.health',
    benchmark: `authenticated read: GET /api/v1/health, bearer, PostgreSQL, ${CONNECTIONS} connections`,
    measured: `${fmt.rps(r.health.rps)} (p99 ${fmt.ms(r.health.latency.p99)}; ${cpuUs(r.health)})`,
    baseline,
    ratio: r.health.rps / r.ceiling.rps,
    target: `>= ${TARGET_HEALTH}`,
    check: (x) => x >= TARGET_HEALTH,
    details: {
      ceiling: r.ceiling,
      health: r.health,
      cpuRatio: r.health.perCpuSecond / r.ceiling.perCpuSecond,
    },
  });
  addRow({
    id: 'read.contract-floor',
    benchmark: `the floor of an authenticated read on Koa: the contract's per-request work only, hand-written in one middleware (bench/servers/contract-floor-koa.mjs), ${CONNECTIONS} connections`,
    measured: `${fmt.rps(r.floor.rps)} (p99 ${fmt.ms(r.floor.latency.p99)}; ${cpuUs(r.floor)})`,
    baseline,
    ratio: r.floor.rps / r.ceiling.rps,
    target: 'report',
    details: { floor: r.floor, healthOfFloor: r.health.rps / r.floor.rps },
  });
  addRow({
    id: 'read.tenants-me',
    benchmark: `authenticated read: GET /api/v1/tenants/me, bearer, PostgreSQL, ${CONNECTIONS} connections`,
    measured: `${fmt.rps(r.me.rps)} (p99 ${fmt.ms(r.me.latency.p99)}; ${cpuUs(r.me)})`,
    baseline,
    ratio: r.me.rps / r.ceiling.rps,
    target: `>= ${TARGET_ME}`,
    check: (x) => x >= TARGET_ME,
    details: { me: r.me },
  });
  addRow({
    id: 'read.tenants-me-tenants',
    benchmark: `authenticated read: GET /api/v1/tenants/me, ${CONNECTIONS} users of ${CONNECTIONS} tenants (a token per connection), PostgreSQL`,
    measured: `${fmt.rps(r.meTenants.rps)} (p99 ${fmt.ms(r.meTenants.latency.p99)}; ${cpuUs(r.meTenants)})`,
    baseline,
    ratio: r.meTenants.rps / r.ceiling.rps,
    target: 'report',
    details: { meTenants: r.meTenants },
  });
});
