// The floor of an authenticated GET /health on Koa: the work the HTTP contract asks of every answer under
// the prefix, and nothing else, written as one Koa middleware by hand (no tenant-auth, no router, no
// error handling, no CORS check): a request id (random UUID, X-Request-Id), the three security headers
// and Vary: Origin, a per-client counter with the three RateLimit headers, the bearer token matched with
// the contract's pattern and looked up in a map of verified tokens, the constant JSON body, a request log
// line (built as JSON, kept in memory and dropped every 250 ms: never written, so cheaper than any real
// log) and a request-duration histogram of prom-client with route, method and status labels.
// Optimistic on purpose: what the reference server's GET /api/v1/health can at best be on this Koa.
// Prints {"port": N} once listening.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { requireFromServer } from '../lib/harness.mjs';

const Koa = requireFromServer('koa');
const { Histogram } = requireFromServer('prom-client');

const duration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Request duration',
  labelNames: ['route', 'method', 'status'],
});
const body = { status: 'ok', database: 'ok' };
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const verified = new Map();
const budgets = new Map();
let lines = [];
setInterval(() => {
  lines = [];
}, 250).unref();

const app = new Koa();
app.silent = true;
app.use((ctx) => {
  const started = performance.now();
  const { res } = ctx;
  const requestId = randomUUID();
  res.setHeader('X-Request-Id', requestId);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Vary', 'Origin');
  const now = Date.now();
  let budget = budgets.get(ctx.ip);
  if (budget === undefined || now - budget.since > 60_000) {
    budget = { since: now, used: 0 };
    budgets.set(ctx.ip, budget);
  }
  budget.used++;
  res.setHeader('RateLimit-Limit', '1000000000');
  res.setHeader('RateLimit-Remaining', String(1_000_000_000 - budget.used));
  res.setHeader('RateLimit-Reset', String(Math.ceil((budget.since + 60_000 - now) / 1000)));
  const token = BEARER.exec(ctx.get('authorization'))?.[1];
  if (token === undefined) {
    ctx.status = 401;
    return;
  }
  let claims = verified.get(token);
  if (claims === undefined) {
    // The bench's token stands in for a verified one: the map lookup is the per-request work.
    claims = { sub: 'user', exp: now + 900_000 };
    verified.set(token, claims);
  }
  if (claims.exp <= now) {
    ctx.status = 401;
    return;
  }
  ctx.body = body;
  const ms = Math.round((performance.now() - started) * 10) / 10;
  lines.push(
    `{"level":"info","time":"${new Date(now).toISOString()}","service":"floor","event":"request","requestId":"${requestId}","method":"${ctx.method}","path":${JSON.stringify(ctx.path)},"status":${ctx.status},"ms":${ms},"ip":"${ctx.ip}","msg":"request"}\n`,
  );
  duration.observe({ route: '/api/v1/health', method: ctx.method, status: ctx.status }, ms / 1000);
});
const server = createServer(app.callback());
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: server.address().port }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
