// Runs the application of docs/getting-started.md, built as the guide says (`pnpm build`), with
// `pnpm start` on a fresh PostgreSQL database, and makes the requests of its step 8, reading the tokens
// from the emails the guide's development mailer writes to the console. Copied into the guide's project
// and run there, so its imports resolve from the project's node_modules.
//
//   node guide-step8.mjs <PostgreSQL URL of a database to create others beside (TEST_DATABASE_URL)>
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { MikroORM } from '@mikro-orm/postgresql';

const [baseUrl] = process.argv.slice(2);
if (!baseUrl) throw new Error('usage: node guide-step8.mjs <PostgreSQL URL>');

const name = `ta_guide_${randomBytes(6).toString('hex')}`;
const databaseUrl = new URL(baseUrl);
databaseUrl.pathname = `/${name}`;

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const admin = await MikroORM.init({
  clientUrl: baseUrl,
  entities: [],
  discovery: { warnWhenNoEntities: false },
});

// Step 7: a database that does not exist stops the start, naming it, and is not created.
{
  const missing = `${name}_missing`;
  const missingUrl = new URL(baseUrl);
  missingUrl.pathname = `/${missing}`;
  const refused = spawn('pnpm', ['start'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: '0',
      DATABASE_URL: missingUrl.toString(),
      JWT_SECRET: randomBytes(32).toString('base64url'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('base64url'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  refused.stdout.setEncoding('utf8').on('data', (chunk) => {
    said += chunk;
  });
  refused.stderr.setEncoding('utf8').on('data', (chunk) => {
    said += chunk;
  });
  const [code] = await once(refused, 'exit');
  const rows = await admin.em
    .getConnection()
    .execute('select 1 from pg_database where datname = ?', [missing]);
  if (code === 0 || !said.includes(`database "${missing}" does not exist`) || rows.length > 0) {
    await admin.em.getConnection().execute(`drop database if exists "${missing}" with (force)`);
    await admin.close(true);
    throw new Error(
      `a missing database was not refused (exit ${code}, created: ${rows.length > 0}):\n${said}`,
    );
  }
  console.log('ok   a missing database: refused, named, not created');
}

await admin.em.getConnection().execute(`create database "${name}"`);
const port = await freePort();
const base = `http://127.0.0.1:${port}/api/v1`;
let output = '';
const app = spawn('pnpm', ['start'], {
  env: {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: String(port),
    DATABASE_URL: databaseUrl.toString(),
    JWT_SECRET: randomBytes(32).toString('base64url'),
    JWT_REFRESH_SECRET: randomBytes(32).toString('base64url'),
    APP_URL: 'http://localhost:5173',
    MAIL_FROM: 'Example <no-reply@example.com>',
  },
  stdio: ['ignore', 'pipe', 'pipe'],
  // Its own process group: `pnpm start` runs node as a child, and the signal must reach both.
  detached: true,
});
app.stdout.setEncoding('utf8').on('data', (chunk) => {
  output += chunk;
});
app.stderr.setEncoding('utf8').on('data', (chunk) => {
  output += chunk;
});
let exited = false;
app.once('exit', () => {
  exited = true;
});
/** Signals `pnpm start` and the node process it started (the group this script created). */
const signal = (name) => {
  try {
    process.kill(-app.pid, name);
  } catch {
    // Already gone.
  }
};

async function until(what, check, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (exited) throw new Error(`the application exited while waiting for ${what}`);
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** One request of step 8; fails unless it answers `status`. */
async function call(method, path, { token, body, status }) {
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text === '' ? undefined : JSON.parse(text);
  if (res.status !== status)
    throw new Error(`${method} ${path}: ${res.status} instead of ${status}: ${text}`);
  console.log(`ok   ${method} ${path}: ${res.status}`);
  return json;
}

/** The token of the link in the latest email to `to` whose link goes to `page`, once the outbox sent it. */
function tokenFromEmail(to, page) {
  return until(`an email to ${to} with a /${page} link`, async () => {
    const emails = output.split(/^email to /m).filter((e) => e.startsWith(`${to}:`));
    const match = emails
      .map((e) => new RegExp(`/${page}\\?token=([A-Za-z0-9_-]+)`).exec(e))
      .filter(Boolean)
      .at(-1);
    return match?.[1];
  });
}

let failed = false;
try {
  await until('answer from the application', async () => {
    const res = await fetch(`${base}/projects`);
    return res.status === 401 ? true : undefined;
  });
  if (!output.includes(`listening on http://localhost:${port}`))
    throw new Error(`no "listening on http://localhost:${port}" line:\n${output}`);
  console.log('ok   says where it listens');
  const ada = await call('POST', '/auth/register', {
    body: {
      email: 'ada@example.com',
      password: 'Correct-Horse-Battery-42',
      tenantName: 'Analytical Engines',
    },
    status: 201,
  });
  const project = await call('POST', '/projects', {
    token: ada.accessToken,
    body: { name: 'Difference Engine' },
    status: 201,
  });
  const listed = await call('GET', '/projects', { token: ada.accessToken, status: 200 });
  if (listed.projects.length !== 1 || listed.projects[0].name !== 'Difference Engine')
    throw new Error(`GET /projects: ${JSON.stringify(listed)}`);
  const other = await call('POST', '/auth/register', {
    body: { email: 'charles@example.com', password: 'Correct-Horse-Battery-43', tenantName: 'Babbage & Co' },
    status: 201,
  });
  const theirs = await call('GET', '/projects', { token: other.accessToken, status: 200 });
  if (theirs.projects.length !== 0)
    throw new Error(`a second tenant sees projects: ${JSON.stringify(theirs)}`);
  const verification = await tokenFromEmail('ada@example.com', 'verify-email');
  await call('POST', '/auth/email/verify', { body: { token: verification }, status: 204 });
  await call('POST', '/tenants/me/invitations', {
    token: ada.accessToken,
    body: { email: 'grace@example.com', role: 'member' },
    status: 201,
  });
  const invitation = await tokenFromEmail('grace@example.com', 'accept-invitation');
  const grace = await call('POST', '/auth/invitations/accept', {
    body: { token: invitation, password: 'Harbour-Lantern-Quay-7' },
    status: 201,
  });
  const refused = await call('DELETE', `/projects/${project.id}`, { token: grace.accessToken, status: 403 });
  if (refused.code !== 'forbidden') throw new Error(`DELETE as a member: ${JSON.stringify(refused)}`);
  await call('DELETE', `/projects/${project.id}`, { token: ada.accessToken, status: 204 });
  console.log("ok   the guide's application went through step 8 on PostgreSQL");
} catch (err) {
  failed = true;
  console.error(
    `FAIL ${err instanceof Error ? err.message : String(err)}\n--- the application's output:\n${output}`,
  );
} finally {
  // The guide's SIGTERM handler closes the server and the database, and the process ends.
  const closed = Promise.all([once(app.stdout, 'close'), once(app.stderr, 'close')]);
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 10_000);
  await closed;
  clearTimeout(timer);
  await admin.em.getConnection().execute(`drop database if exists "${name}" with (force)`);
  await admin.close(true);
}
process.exitCode = failed ? 1 : 0;
