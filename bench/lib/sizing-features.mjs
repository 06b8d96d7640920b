// The operations of 1.2 and 1.3 that the sizing table counts (bench/sizing.bench.mjs): the second factor,
// API keys, SCIM provisioning and webhook delivery. They run on the reference server as the SCIM benchmarks
// start it (startScimBench: a DNS server and an SMTP server on loopback, NODE_ENV=test), with a webhook
// receiver in this process. What each needs (a verified tenant, a TOTP factor, a key, an endpoint) is made
// first or inside the operation before `mark()`, which drops whatever was sent until then: only the
// operation itself is counted.
import { createServer } from 'node:http';
import { clientAddress, expectStatus, http, importFromServer, registerUser } from './harness.mjs';
import { directoryTenant, PATCH_SCHEMA, scimHeaders, scimUser } from './scim.mjs';

const { generateSync } = await importFromServer('otplib');
const totp = (secret, atMs) => generateSync({ strategy: 'totp', secret, epoch: Math.floor(atMs / 1000) });

/** A receiver on loopback that answers 204 at once; `next()` resolves at the next arrival (fails after 10 s). */
export async function startReceiver() {
  const waiting = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(204).end();
      for (const resolve of waiting.splice(0)) resolve();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    next: () =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('webhook: no delivery arrived in 10 s')), 10_000);
        waiting.push(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * Prepares the tenants and users, then returns the operations as `[name, run]`; `run({ mark, proxy })` sends
 * one operation (`proxy`: the PostgreSQL proxy, to see the worker's passes) and may return `{ cut }`: the
 * moment (performance.now()) after which what the server sends is no longer the operation's.
 */
export async function featureOperations({ url, dns, inbox, receiver }) {
  const api = `${url}/api/v1`;
  const bearer = (token, i) => ({ authorization: `Bearer ${token}`, 'x-forwarded-for': clientAddress(i) });
  const tenant = await directoryTenant(url, dns, inbox);

  // A user of its own tenant with a TOTP factor, confirmed with the code of the current step: the sign-in
  // below answers the code of the next step (one step of drift is accepted; a step is accepted once).
  const person = await registerUser(url, 'sizing-totp');
  const setup = expectStatus(
    await http(`${api}/auth/mfa/totp/setup`, { method: 'POST', headers: bearer(person.accessToken, 7001) }),
    200,
    'totp setup',
  );
  const confirmedAt = Date.now();
  expectStatus(
    await http(`${api}/auth/mfa/totp/confirm`, {
      method: 'POST',
      headers: bearer(person.accessToken, 7001),
      body: { code: totp(setup.secret, confirmedAt) },
    }),
    200,
    'totp confirm',
  );

  const state = {};
  return [
    [
      'login + TOTP: POST /auth/login (401 mfa_required)',
      async () => {
        const res = await http(`${api}/auth/login`, {
          method: 'POST',
          headers: { 'x-forwarded-for': clientAddress(7002) },
          body: { email: person.email, password: person.password },
        });
        if (res.status !== 401 || res.body?.code !== 'mfa_required')
          throw new Error(`login + TOTP: expected 401 mfa_required, got ${res.status}`);
        state.mfaToken = res.body.mfaToken;
      },
    ],
    [
      'login + TOTP: POST /auth/mfa/verify',
      async () => {
        expectStatus(
          await http(`${api}/auth/mfa/verify`, {
            method: 'POST',
            headers: { 'x-forwarded-for': clientAddress(7002) },
            body: {
              mfaToken: state.mfaToken,
              method: 'totp',
              code: totp(setup.secret, confirmedAt + 30_000),
            },
          }),
          200,
          'mfa verify',
        );
      },
    ],
    [
      'create API key',
      async () => {
        const body = expectStatus(
          await http(`${api}/tenants/me/api-keys`, {
            method: 'POST',
            headers: bearer(tenant.ownerToken, 7003),
            body: { name: 'sizing', role: 'member' },
          }),
          201,
          'create API key',
        );
        state.key = body.secret;
      },
    ],
    [
      'GET /tenants/me with an API key (first use, uncached)',
      async () => {
        expectStatus(await http(`${api}/tenants/me`, { headers: bearer(state.key, 7004) }), 200, 'key read');
      },
    ],
    [
      // Within API_KEY_CACHE_SECONDS (4) of the first use: the key is in this instance's verified-key cache.
      'GET /tenants/me with an API key (cached)',
      async () => {
        expectStatus(await http(`${api}/tenants/me`, { headers: bearer(state.key, 7004) }), 200, 'key read');
      },
    ],
    [
      'SCIM create user (POST /scim/v2/Users)',
      async () => {
        const body = expectStatus(
          await http(`${url}/scim/v2/Users`, {
            method: 'POST',
            headers: scimHeaders(tenant.scimToken),
            body: scimUser(`sized@${tenant.domain}`),
          }),
          201,
          'SCIM create',
        );
        state.scimUserId = body.id;
      },
    ],
    [
      'SCIM deactivate user (PATCH active false)',
      async () => {
        expectStatus(
          await http(`${url}/scim/v2/Users/${state.scimUserId}`, {
            method: 'PATCH',
            headers: scimHeaders(tenant.scimToken),
            body: { schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', path: 'active', value: false }] },
          }),
          200,
          'SCIM deactivate',
        );
      },
    ],
    [
      // Counted: the login up to its answer (the event's delivery queued with it), not the delivery, which
      // the worker makes meanwhile (the next row). The endpoint is made first, by the owner (a recent
      // session: the registration's).
      'login, its tenant with a webhook endpoint subscribed to login_succeeded',
      async ({ mark, proxy }) => {
        expectStatus(
          await http(`${api}/tenants/me/webhooks`, {
            method: 'POST',
            headers: bearer(tenant.ownerToken, 7005),
            body: { url: receiver.url, events: ['login_succeeded', 'refreshed'] },
          }),
          201,
          'create webhook',
        );
        mark();
        const { arrived } = await afterWorkerPass(proxy, receiver);
        state.owner = expectStatus(
          await http(`${api}/auth/login`, {
            method: 'POST',
            headers: { 'x-forwarded-for': clientAddress(7005) },
            body: { email: tenant.email, password: tenant.password },
          }),
          200,
          'owner login',
        );
        const cut = performance.now();
        await arrived;
        return { cut };
      },
    ],
    [
      // Counted: the server's delivery worker from the event's commit on (its pass that claims the delivery,
      // signs and posts it, and records the attempt), not the request that wrote the event (a refresh).
      'webhook: one event delivered (the worker)',
      async ({ mark, proxy }) => {
        const { arrived } = await afterWorkerPass(proxy, receiver);
        expectStatus(
          await http(`${api}/auth/refresh`, {
            method: 'POST',
            headers: { 'x-forwarded-for': clientAddress(7005) },
            body: { refreshToken: state.owner.refreshToken },
          }),
          200,
          'refresh',
        );
        mark();
        await arrived;
      },
    ],
  ];
}

/**
 * Waits for the webhook worker's next pass (its claim reaching the proxy; what came before is dropped) and
 * returns `{ arrived }`, the receiver's next arrival (wrapped: a promise returned bare would be awaited): the worker polls every second, so an event written just after one of
 * its passes is delivered by the next, a good part of a second later, not in the instant between the
 * request's commit and its answer.
 */
async function afterWorkerPass(proxy, receiver) {
  const deadline = Date.now() + 5000;
  for (;;) {
    if (proxy.take().some((s) => s.text.includes('tenant_auth_webhook_delivery')))
      return { arrived: receiver.next() };
    if (Date.now() > deadline) throw new Error('webhook: no pass of the delivery worker in 5 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}
