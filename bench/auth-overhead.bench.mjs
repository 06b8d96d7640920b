// Auth overhead: the same Koa app and the same route (a constant JSON body), with and without
// requireAuth() in front of it (a bearer access token, HS256, session checks off: the default). A third
// route, behind requireAuth() under the /api/v1 prefix, shows what tenant-auth-koa's middleware() stack
// adds on top (request id, security headers, CORS, the general rate-limit budget, body handling, routing):
// reported, no target. Interleaved in six turns, every other one in reverse order; memory stores, no database.
import { fileURLToPath } from 'node:url';
import { addRow, assertClean, fmt, interleaved, main, startScript } from './lib/harness.mjs';

const CONNECTIONS = 50;
const TARGET = 0.8;

await main(async () => {
  const app = await startScript(fileURLToPath(new URL('./servers/guarded-koa.mjs', import.meta.url)));
  const headers = { authorization: `Bearer ${app.token}` };
  const r = await interleaved({
    plain: { options: { url: `${app.url}/plain`, connections: CONNECTIONS }, pid: app.pid },
    guarded: { options: { url: `${app.url}/guarded`, headers, connections: CONNECTIONS }, pid: app.pid },
    prefixed: {
      options: { url: `${app.url}/api/v1/app/guarded`, headers, connections: CONNECTIONS },
      pid: app.pid,
    },
  });
  await app.stop();
  for (const [name, phase] of Object.entries(r)) assertClean(name, phase);
  const baseline = `same route without auth ${fmt.rps(r.plain.rps)}`;
  addRow({
    id: 'auth-overhead.require-auth',
    benchmark: `auth overhead: a route behind requireAuth() (bearer, HS256), ${CONNECTIONS} connections`,
    measured: fmt.rps(r.guarded.rps),
    baseline,
    ratio: r.guarded.rps / r.plain.rps,
    target: `>= ${TARGET}`,
    check: (x) => x >= TARGET,
    details: r,
  });
  addRow({
    id: 'auth-overhead.middleware-stack',
    benchmark: 'auth overhead: the same guarded route under /api/v1 (the whole middleware() stack first)',
    measured: fmt.rps(r.prefixed.rps),
    baseline,
    ratio: r.prefixed.rps / r.plain.rps,
    target: 'report',
  });
});
