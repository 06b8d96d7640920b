// The app of the auth-overhead benchmark: one Koa app with tenant-auth installed (createTenantAuth on memory
// stores, createTenantAuthKoa().middleware()) and three routes answering the same constant JSON body:
//   GET /plain               no auth (the baseline)
//   GET /guarded             behind requireAuth() (the measured route)
//   GET /api/v1/app/guarded  behind requireAuth(), under the prefix: the whole middleware() stack runs first
// Prints {"port", "token"} (an access token of a registered user) once listening.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { importFromServer, requireFromServer } from '../lib/harness.mjs';

const Koa = requireFromServer('koa');
const { createMemoryStores, createTenantAuth } = await importFromServer('tenant-auth-core');
const { createTenantAuthKoa } = await importFromServer('tenant-auth-koa');

const silent = { error() {}, warn() {}, info() {} };
const auth = createTenantAuth({
  stores: createMemoryStores(),
  accessToken: { secret: randomBytes(32).toString('hex') },
  refreshSecret: randomBytes(32).toString('hex'),
  passwordHashing: { cost: 4 },
  rateLimit: { general: 1_000_000_000, strict: 1_000_000_000 },
  checkSessionOnVerify: process.env.BENCH_CHECK_SESSION === '1',
  logger: silent,
});
const tenantAuth = createTenantAuthKoa({
  auth,
  production: true,
  origins: ['https://app.example.com'],
  logger: silent,
});
const { accessToken } = await auth.register({
  email: 'overhead@bench.example.com',
  password: `Lattice-${randomBytes(9).toString('hex')}-97`,
  tenantName: 'Overhead bench',
});

const app = new Koa();
app.silent = true;
const body = { status: 'ok', database: 'ok' };
const answer = async (ctx) => {
  ctx.body = body;
};
const guard = tenantAuth.requireAuth();
app.use(tenantAuth.middleware());
app.use(async (ctx, next) => {
  if (ctx.path === '/plain') return answer(ctx);
  if (ctx.path === '/guarded' || ctx.path === '/api/v1/app/guarded') return guard(ctx, () => answer(ctx));
  return next();
});
const server = createServer(app.callback());
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: server.address().port, token: accessToken }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
