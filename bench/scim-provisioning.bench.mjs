// SCIM provisioning (issue 40): BENCH_SCIM_USERS users (default 1,000) created through
// `POST /scim/v2/Users` on the reference server (PostgreSQL, real HTTP), against as many role changes
// `PATCH /api/v1/tenants/me/members/:userId {role}` over the members API by the tenant's owner, the
// baseline, in the same run. Both are one write transaction under the tenant's lock; a SCIM create also
// checks the address against the verified domains and writes the directory's record of the user. Target
// (the issue's): the SCIM rate >= 0.8 of the PATCH rate.
//
// Setup as examples/server/test/scim.test.ts does it: the owner verifies its address through the link an
// SMTP server on loopback receives (the members API wants a verified admin); a DNS server on loopback publishes the tenant's TXT
// record (DNS_SERVERS), so the owner verifies its domain; the owner then creates the SCIM token (a recent
// route: the registration is). NODE_ENV=test: in production the server requires STARTTLS of its SMTP
// server, which the loopback one does not offer (as in the webhooks benchmark, where production refuses a
// receiver on loopback). The userNames are `u<n>@<that domain>`. Two rounds, the second in reverse
// order (SCIM then PATCH, PATCH then SCIM), each side half the count; the role changes go to the users
// the first SCIM round created (to `admin`, then back to `member`).
import { addRow, inRounds, main, postgresProblem, skipRow, sumRounds } from './lib/harness.mjs';
import { countedLoop, directoryTenant, scimHeaders, scimUser, startScimBench } from './lib/scim.mjs';

const USERS = Number(process.env.BENCH_SCIM_USERS ?? 1000);
const CONNECTIONS = 8;
const ROUNDS = 2;
const TARGET = 0.8;

await main(async () => {
  const problem = await postgresProblem();
  if (problem) {
    skipRow('scim.provisioning', 'SCIM provisioning', problem, `>= ${TARGET}`);
    return;
  }
  const { dns, inbox, server, stop } = await startScimBench('scim');
  const tenant = await directoryTenant(server.url, dns, inbox);
  const half = Math.ceil(USERS / ROUNDS);
  const created = [];
  const scim = [];
  const patch = [];
  let n = 0;
  await inRounds(
    {
      scim: async () =>
        scim.push(
          await countedLoop({
            concurrency: CONNECTIONS,
            count: half,
            pid: server.pid,
            request: () => {
              const i = n++;
              return {
                url: `${server.url}/scim/v2/Users`,
                method: 'POST',
                headers: scimHeaders(tenant.scimToken),
                body: scimUser(`u${i}@${tenant.domain}`),
              };
            },
            onAnswer: (res) => {
              if (res.status === 201) created.push(res.body.id);
            },
          }),
        ),
      patch: async (round) => {
        const targets = created.slice(0, half);
        patch.push(
          await countedLoop({
            concurrency: CONNECTIONS,
            count: half,
            pid: server.pid,
            request: (i) => ({
              url: `${server.url}/api/v1/tenants/me/members/${targets[i % targets.length]}`,
              method: 'PATCH',
              headers: { authorization: `Bearer ${tenant.ownerToken}` },
              body: { role: round === 0 ? 'admin' : 'member' },
            }),
          }),
        );
      },
    },
    ROUNDS,
  );
  await stop();
  const s = sumRounds(scim);
  const p = sumRounds(patch);
  if (s.failures > 0 || p.failures > 0)
    throw new Error(
      `scim: ${s.failures} SCIM and ${p.failures} PATCH failures: ${JSON.stringify([...scim, ...patch].flatMap((r) => r.firstFailures))}`,
    );
  addRow({
    id: 'scim.provisioning',
    benchmark: `SCIM provisioning: ${s.ops} users by POST /scim/v2/Users, PostgreSQL, ${CONNECTIONS} in flight`,
    measured: `${s.rps.toFixed(1)}/s (${s.perCpuSecond.toFixed(1)}/s per server core)`,
    baseline: `${p.ops} role changes by PATCH /tenants/me/members/:userId: ${p.rps.toFixed(1)}/s (${p.perCpuSecond.toFixed(1)}/s per server core)`,
    ratio: s.rps / p.rps,
    target: `>= ${TARGET}`,
    check: (x) => x >= TARGET,
    details: { users: USERS, cpuRatio: s.perCpuSecond / p.perCpuSecond, scim, patch },
  });
});
