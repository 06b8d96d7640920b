// `pnpm bench:profile`: where the time goes on the authenticated read path. Runs the reference server
// (PostgreSQL, LOG_LEVEL=info as by default) under `node --cpu-prof`, loads one endpoint with autocannon
// (50 connections, BENCH_PROFILE_SECONDS, default 8), stops it (the profile is written at exit), and
// summarises the load phase of the profile: the busy time per step of the path (jose, pino, pg, MikroORM,
// Koa, rate limit, ...), per package, the top self-time frames, and an SVG flame graph. One server per endpoint (GET /api/v1/health, then
// GET /api/v1/tenants/me, then POST /api/v1/auth/refresh), so each profile holds one path only.
//
// Writes bench/results/profile-<name>.svg and bench/results/profile.md (the summary BENCHMARKS.md quotes);
// the raw .cpuprofile files stay in bench/results/cpuprofiles/ (not committed: open them in Chrome
// DevTools or any .cpuprofile viewer).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bySteps, flameGraphSvg, loadProfile, summarise } from './lib/cpuprofile.mjs';
import {
  cannon,
  clientAddress,
  createThrowawayDatabase,
  expectStatus,
  http,
  main,
  postgresProblem,
  ROOT,
  registerUser,
  startReferenceServer,
} from './lib/harness.mjs';

const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 8);
const results = join(ROOT, 'bench', 'results');
const raw = join(results, 'cpuprofiles');

async function profileOne(name, dbUrl, prepare) {
  const server = await startReferenceServer({
    databaseUrl: dbUrl,
    bcryptCost: 10,
    nodeArgs: ['--cpu-prof', '--cpu-prof-dir', raw, '--cpu-prof-name', `${name}.cpuprofile`],
  });
  const options = await prepare(server);
  const loadStart = performance.now() - server.spawnedAt;
  const load = await cannon({ ...options, connections: 50, duration: SECONDS });
  const loadEnd = performance.now() - server.spawnedAt;
  await server.stop();
  // A profile of refusals would say nothing about the path. (A refresh chain can lose a rotation when
  // autocannon reconnects a socket: a handful of 401s in thousands is that, not the path.)
  if (load.errors > 0 || load.ok === 0 || load.non2xx > load.ok / 500) {
    throw new Error(
      `${name}: ${load.ok} 2xx, ${load.non2xx} non-2xx, ${load.errors} errors under the profiler`,
    );
  }
  // Only the load phase (its first second left out: warm-up), not start-up or shutdown.
  const profile = loadProfile(readFileSync(join(raw, `${name}.cpuprofile`), 'utf8'), {
    fromMs: loadStart + 1000,
    toMs: loadEnd,
  });
  writeFileSync(
    join(results, `profile-${name}.svg`),
    `${flameGraphSvg(profile, { title: `${name}: ${options.title}` })}\n`,
  );
  return {
    name,
    title: options.title,
    rps: load.rps,
    refused: load.non2xx,
    summary: summarise(profile),
    steps: bySteps(profile),
  };
}

const pct = (x) => `${(x * 100).toFixed(1)} %`;

await main(async () => {
  const problem = await postgresProblem();
  if (problem) throw new Error(`the profile needs PostgreSQL: ${problem}`);
  rmSync(raw, { recursive: true, force: true });
  mkdirSync(raw, { recursive: true });
  const db = await createThrowawayDatabase('profile');
  const bearer = async (server) => ({
    authorization: `Bearer ${(await registerUser(server.url, 'profile')).accessToken}`,
  });
  const profiles = [];
  profiles.push(
    await profileOne('health', db.url, async (server) => ({
      title: 'GET /api/v1/health, bearer, 50 connections',
      url: `${server.url}/api/v1/health`,
      headers: await bearer(server),
    })),
  );
  profiles.push(
    await profileOne('tenants-me', db.url, async (server) => ({
      title: 'GET /api/v1/tenants/me, bearer, 50 connections',
      url: `${server.url}/api/v1/tenants/me`,
      headers: await bearer(server),
    })),
  );
  profiles.push(
    await profileOne('refresh', db.url, async (server) => {
      const user = await registerUser(server.url, 'profile-refresh');
      const tokens = [];
      for (let i = 0; i < 50; i++) {
        const res = await http(`${server.url}/api/v1/auth/login`, {
          method: 'POST',
          body: { email: user.email, password: user.password },
          headers: { 'x-forwarded-for': clientAddress(i) },
        });
        tokens.push(expectStatus(res, 200, 'login').refreshToken);
      }
      let n = 0;
      // One request in flight per chain: two on one chain would replay each other's tokens, which revokes
      // the chain (and the profile would then be of refusals). autocannon gives every request a fresh
      // context, so a request takes a free chain and gives it back with its answer.
      const free = tokens.map((_, i) => i);
      return {
        title: 'POST /api/v1/auth/refresh, 50 chains',
        url: `${server.url}/api/v1/auth/refresh`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        requests: [
          {
            setupRequest: (req, context) => {
              context.slot = free.pop();
              if (context.slot === undefined) throw new Error('more requests in flight than refresh chains');
              return {
                ...req,
                headers: { ...req.headers, 'x-forwarded-for': clientAddress(n++) },
                body: JSON.stringify({ refreshToken: tokens[context.slot] }),
              };
            },
            onResponse: (status, body, context) => {
              if (status === 200) tokens[context.slot] = JSON.parse(body).refreshToken;
              free.push(context.slot);
            },
          },
        ],
        warmupSeconds: 0,
      };
    }),
  );
  await db.drop();

  const lines = [
    `Profiles of the reference server (PostgreSQL, LOG_LEVEL=info) under autocannon, 50 connections, ${SECONDS} s each,`,
    `made by \`pnpm bench:profile\` on ${new Date().toISOString().slice(0, 10)}. Shares are of the main thread's busy time`,
    '(idle left out), in the load phase only (start-up, the first second of load and shutdown left out). A sample of',
    "Node's internals or natives (a socket write, WebCrypto's job) counts for the nearest package frame above it.",
    '',
  ];
  for (const p of profiles) {
    const s = p.summary;
    lines.push(`### ${p.title}`, '');
    lines.push(
      `${Math.round(p.rps)} requests/s under the profiler (${p.refused} refused); main thread busy ${(s.busyMs / 1000).toFixed(1)} s of ${(s.totalMs / 1000).toFixed(1)} s (idle ${pct(s.idleShare)}). Flame graph: [profile-${p.name}.svg](profile-${p.name}.svg).`,
      '',
      '| step (each sample to its nearest frame that has a step) | share of busy time |',
      '|---|---|',
      ...p.steps.filter((v) => v.share >= 0.003).map((v) => `| ${v.step} | ${pct(v.share)} |`),
      '',
      '| package or part (self time) | share |',
      '|---|---|',
      ...s.categories.slice(0, 14).map((c) => `| ${c.category} | ${pct(c.share)} |`),
      '',
      '| top self-time frames | package | share |',
      '|---|---|---|',
      ...s.topFrames
        .slice(0, 20)
        .map((f) => `| \`${f.frame.replaceAll('|', '\\|')}\` | ${f.category} | ${pct(f.share)} |`),
      '',
    );
  }
  writeFileSync(join(results, 'profile.md'), `${lines.join('\n')}\n`);
  writeFileSync(
    join(results, 'profile.json'),
    `${JSON.stringify(
      profiles.map((p) => ({ ...p, summary: { ...p.summary, topFrames: p.summary.topFrames.slice(0, 40) } })),
      null,
      2,
    )}\n`,
  );
  console.log(lines.join('\n'));
  console.log(`raw profiles: ${readdirSync(raw).join(', ')} in bench/results/cpuprofiles/`);
});
