// The ceiling of the authenticated-read benchmark: the reference server's own Koa (same version, same
// Node), on a plain node:http server, answering GET / with a constant JSON body. No middleware at all.
import { createServer } from 'node:http';
import { requireFromServer } from '../lib/harness.mjs';

const Koa = requireFromServer('koa');
const app = new Koa();
app.silent = true;
const body = { status: 'ok', database: 'ok' };
app.use((ctx) => {
  ctx.body = body;
});
const server = createServer(app.callback());
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: server.address().port }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
