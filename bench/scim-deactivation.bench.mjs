// SCIM deactivation (issue 40): the latency of one `PATCH /scim/v2/Users/:id {active: false}` on the
// reference server (PostgreSQL, real HTTP) for an admin with BENCH_SCIM_SESSIONS sessions (default 100,
// each a password login) and BENCH_SCIM_KEYS API keys (default 10, each made by that admin), against the
// same PATCH for freshly provisioned users with no session and no key (the median of BASELINE_USERS), in
// the same run. Core's updateScimUser runs the flag, every session and every key of the user in one
// transaction under the tenant's lock (packages/tenant-auth-core/src/use-cases/scim/scim-users.ts).
//
// Then the check: from the database, none of the user's sessions and none of its keys is left unrevoked,
// and over HTTP its last access token and one of its keys answer 401.
//
// The admin is made as a directory would make it and its staff would then use it: provisioned by
// `POST /scim/v2/Users` (an address of the tenant's verified domain, see scim-provisioning), made an admin
// by the owner (`PATCH /tenants/me/members/:userId {role}`), its password set through the reset link (a
// provisioned user has none; the link arrives at an SMTP server on loopback), then the logins, then the
// keys (a recent route for an admin with a verified address: the last login is recent). NODE_ENV=test
// for the loopback SMTP server, as in scim-provisioning.
import { randomBytes } from 'node:crypto';
import {
  addRow,
  clientAddress,
  expectStatus,
  http,
  main,
  median,
  postgresProblem,
  requireFromRoot,
  skipRow,
} from './lib/harness.mjs';
import {
  countedLoop,
  directoryTenant,
  PATCH_SCHEMA,
  scimHeaders,
  scimUser,
  startScimBench,
} from './lib/scim.mjs';

const SESSIONS = Number(process.env.BENCH_SCIM_SESSIONS ?? 100);
const KEYS = Number(process.env.BENCH_SCIM_KEYS ?? 10);
const BASELINE_USERS = 5;

await main(async () => {
  const problem = await postgresProblem();
  if (problem) {
    skipRow('scim.deactivation', 'SCIM deactivation', problem);
    skipRow('scim.deactivation.revoked', 'SCIM deactivation revokes everything', problem, 'all revoked');
    return;
  }
  const { dns, inbox, db, server, stop } = await startScimBench('scimoff');
  const { Pool } = requireFromRoot('pg');
  const pool = new Pool({ connectionString: db.url, max: 2 });
  const tenant = await directoryTenant(server.url, dns, inbox);
  const api = (path, init = {}, token) =>
    http(`${server.url}/api/v1${path}`, {
      ...init,
      headers: {
        'x-forwarded-for': clientAddress(5000),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
    });
  const provision = async (userName) =>
    expectStatus(
      await http(`${server.url}/scim/v2/Users`, {
        method: 'POST',
        headers: scimHeaders(tenant.scimToken),
        body: scimUser(userName),
      }),
      201,
      'SCIM create',
    ).id;
  const deactivate = (id) =>
    http(`${server.url}/scim/v2/Users/${id}`, {
      method: 'PATCH',
      headers: scimHeaders(tenant.scimToken),
      body: { schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', path: 'active', value: false }] },
    });

  // --- the admin: provisioned, promoted, a password, SESSIONS logins, KEYS keys
  const email = `admin@${tenant.domain}`;
  const id = await provision(email);
  expectStatus(
    await api(`/tenants/me/members/${id}`, { method: 'PATCH', body: { role: 'admin' } }, tenant.ownerToken),
    200,
    'promote',
  );
  expectStatus(await api('/auth/password/forgot', { method: 'POST', body: { email } }), 202, 'forgot');
  const password = `Lattice-${randomBytes(9).toString('hex')}-97`;
  const resetToken = await inbox.tokenFor(email, '/reset-password');
  expectStatus(
    await api('/auth/password/reset', { method: 'POST', body: { token: resetToken, password } }),
    204,
    'reset',
  );
  let accessToken;
  const logins = await countedLoop({
    concurrency: 4,
    count: SESSIONS,
    request: (i) => ({
      url: `${server.url}/api/v1/auth/login`,
      method: 'POST',
      headers: { 'x-forwarded-for': clientAddress(i) },
      body: { email, password },
    }),
    onAnswer: (res) => {
      if (res.status === 200) accessToken = res.body.accessToken;
    },
  });
  if (logins.failures > 0) throw new Error(`logins: ${JSON.stringify(logins.firstFailures)}`);
  const secrets = [];
  for (let k = 0; k < KEYS; k++) {
    const body = expectStatus(
      await api(
        '/tenants/me/api-keys',
        { method: 'POST', body: { name: `key ${k}`, role: 'admin' } },
        accessToken,
      ),
      201,
      'create key',
    );
    secrets.push(body.secret);
  }
  const counts = async () => {
    const { rows } = await pool.query(
      `select
         (select count(*) from tenant_auth_session where user_id = $1 and revoked_at is null)::int as sessions,
         (select count(*) from tenant_auth_api_key where created_by = $1 and revoked_at is null)::int as keys`,
      [id],
    );
    return rows[0];
  };
  const before = await counts();
  if (before.sessions !== SESSIONS || before.keys !== KEYS)
    throw new Error(
      `setup: ${before.sessions} sessions and ${before.keys} keys, wanted ${SESSIONS} and ${KEYS}`,
    );
  expectStatus(await api('/tenants/me', {}, secrets[0]), 200, 'a key works before');

  // --- baseline: the same PATCH for users with nothing to revoke
  const baselineMs = [];
  for (let b = 0; b < BASELINE_USERS; b++) {
    const other = await provision(`plain${b}@${tenant.domain}`);
    const res = await deactivate(other);
    expectStatus(res, 200, 'deactivate a plain user');
    baselineMs.push(res.ms);
  }
  const baseline = median(baselineMs);

  // --- the measured PATCH
  const res = await deactivate(id);
  expectStatus(res, 200, 'deactivate the admin');
  if (res.body.active !== false) throw new Error(`deactivate: answered active ${res.body.active}`);

  // --- the check
  const after = await counts();
  const oldToken = (await api('/users/me', {}, accessToken)).status;
  const oldKey = (await api('/tenants/me', {}, secrets[0])).status;
  const revoked = SESSIONS - after.sessions + (KEYS - after.keys);
  addRow({
    id: 'scim.deactivation',
    benchmark: `SCIM deactivation: one PATCH /scim/v2/Users/:id {active: false} of an admin with ${SESSIONS} sessions and ${KEYS} API keys, PostgreSQL`,
    measured: `${res.ms.toFixed(1)} ms`,
    baseline: `the same PATCH of a user with none, median of ${BASELINE_USERS}: ${baseline.toFixed(1)} ms`,
    ratio: res.ms / baseline,
    target: '- (reported)',
    details: { ms: res.ms, baselineMs, logins: { seconds: logins.seconds } },
  });
  addRow({
    id: 'scim.deactivation.revoked',
    benchmark:
      "check: after that PATCH, the admin's sessions and keys left unrevoked (database), its access token and a key over HTTP",
    measured: `${after.sessions} of ${SESSIONS} sessions and ${after.keys} of ${KEYS} keys left; access token ${oldToken}, key ${oldKey}`,
    baseline: `before: ${before.sessions} sessions and ${before.keys} keys active`,
    ratio: revoked / (SESSIONS + KEYS),
    target: '1 (all revoked, 401 both)',
    check: (x) => x === 1 && oldToken === 401 && oldKey === 401,
    details: { before, after, oldToken, oldKey },
  });

  await pool.end();
  await stop();
});
