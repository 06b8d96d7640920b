// Start-up to ready: how long an operator's `pnpm start` takes to listen on a restart, on embedded PGlite
// with nothing pending. The reference server runs as `pnpm start` runs it (`node --import tsx src/main.ts`
// from examples/server, the workspace packages resolved to their TypeScript sources through
// examples/server/tsconfig.json), with the benchmarks' environment (bench/lib/harness.mjs:
// referenceServerEnv, NODE_ENV=production) but no DATABASE_URL and a DATA_DIR in a temporary folder: the
// embedded database. It starts once unmeasured (creating the database and applying every migration, and
// warming tsx's transform cache as any earlier start would have), then is restarted BENCH_STARTUP_RUNS times
// (default 3), each timed from the spawn to the moment its "listening on" line reaches stdout (what an
// operator watching the log sees; the server holds info lines back for up to 250 ms, and the line's own
// `time` is kept beside it). Baseline, in the same run and in turns with it: bare Koa
// (bench/servers/bare-koa.mjs), spawn to its first line, i.e. Node's own start-up with Koa. Target: the
// median restart <= 3 s, absolute (the ratio to bare Koa is reported). The row's details in latest.json
// keep each run, its log lines' times, and the same restarts with the packages from their dist/ builds
// (the other benchmarks' resolution, TSX_TSCONFIG_PATH).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  addRow,
  freePort,
  main,
  median,
  newSecrets,
  onCleanup,
  ROOT,
  referenceServerEnv,
  SERVER_DIR,
} from './lib/harness.mjs';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 3);
const TARGET_MS = 3000;

/**
 * Spawns `args` in `cwd` and resolves when a stdout line satisfies `isReady(line)`: `{ ms, lines, child }`,
 * `ms` from the spawn, each line with the ms it arrived at. Fails when the process exits first or after
 * `timeoutMs`.
 */
async function spawnUntil({ args, cwd, env, isReady, timeoutMs }) {
  const t0 = performance.now();
  const wall0 = Date.now();
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const kill = () => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL');
  onCleanup(kill);
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-5000);
  });
  const lines = [];
  let buffer = '';
  const ms = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      kill();
      reject(new Error(`not ready in ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.stdout.on('data', (chunk) => {
      const arrived = performance.now() - t0;
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        const text = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        lines.push({ text, arrivedMs: arrived });
        if (isReady(text)) {
          clearTimeout(timer);
          resolve(arrived);
        }
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code ?? signal}) before it was ready\n${stderr}`));
    });
  });
  return { ms, lines, child, wall0 };
}

/** SIGTERM and the ms until the process exited (SIGKILL after 20 s). */
async function stop(child) {
  const t0 = performance.now();
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
  return Math.round(performance.now() - t0);
}

/** The reference server's JSON log lines as milestones: ms after the spawn it was logged at, and arrived at. */
function milestones(lines, wall0) {
  const out = [];
  for (const { text, arrivedMs } of lines) {
    let entry;
    try {
      entry = JSON.parse(text);
    } catch {
      continue;
    }
    out.push({
      msg: String(entry.msg ?? '').slice(0, 120),
      loggedMs: Date.parse(entry.time) - wall0,
      arrivedMs: Math.round(arrivedMs),
      ...(entry.durationMs === undefined ? {} : { durationMs: entry.durationMs }),
    });
  }
  return out;
}

await main(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tenant-auth-bench-startup-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  // The same secrets on every start, as an operator's environment would have them.
  const secrets = newSecrets();
  const reference = async ({ fromDist, timeoutMs = 60_000 }) => {
    const env = referenceServerEnv({ port: await freePort(), secrets, env: { DATA_DIR: dataDir } });
    // `pnpm start` resolves the workspace packages through examples/server/tsconfig.json (their sources).
    if (!fromDist) delete env.TSX_TSCONFIG_PATH;
    const run = await spawnUntil({
      args: ['--import', 'tsx', 'src/main.ts'],
      cwd: SERVER_DIR,
      env,
      isReady: (line) => line.includes('listening on'),
      timeoutMs,
    });
    const stopMs = await stop(run.child);
    const log = milestones(run.lines, run.wall0);
    return {
      ms: Math.round(run.ms),
      listeningLoggedMs: log.find((m) => m.msg.includes('listening on'))?.loggedMs ?? null,
      stopMs,
      log,
    };
  };
  const bareKoa = async () => {
    const run = await spawnUntil({
      args: [join(ROOT, 'bench', 'servers', 'bare-koa.mjs')],
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      isReady: (line) => line.startsWith('{"port"'),
      timeoutMs: 30_000,
    });
    await stop(run.child);
    return { ms: Math.round(run.ms) };
  };

  const first = await reference({ fromDist: false, timeoutMs: 180_000 });
  console.log(`  first start (creates the database, applies every migration): ${first.ms} ms`);
  const runs = [];
  const distRuns = [];
  const baselines = [];
  // In turns, every other one in reverse order, so a drift of the shared machine falls on every side alike.
  for (let i = 0; i < RUNS; i++) {
    const turn = [
      async () => baselines.push(await bareKoa()),
      async () => runs.push(await reference({ fromDist: false })),
      async () => distRuns.push(await reference({ fromDist: true })),
    ];
    for (const step of i % 2 === 0 ? turn : turn.reverse()) await step();
    console.log(
      `  restart ${i + 1}: ${runs.at(-1).ms} ms (packages from dist: ${distRuns.at(-1).ms} ms), bare Koa ${baselines.at(-1).ms} ms`,
    );
  }
  const ms = median(runs.map((r) => r.ms));
  const baseline = median(baselines.map((r) => r.ms));
  const list = (xs) => xs.map((r) => r.ms.toLocaleString('en-US')).join(', ');
  addRow({
    id: 'startup',
    benchmark: `start-up: spawn to the "listening on" line, reference server as \`pnpm start\` runs it, embedded PGlite, nothing pending, median of ${RUNS} restarts`,
    measured: `${ms.toLocaleString('en-US')} ms (runs ${list(runs)})`,
    baseline: `bare Koa, spawn to listening: ${baseline.toLocaleString('en-US')} ms`,
    ratio: ms / baseline,
    target: `<= ${TARGET_MS / 1000} s`,
    check: () => ms <= TARGET_MS,
    details: {
      runsMs: runs.map((r) => r.ms),
      baselineRunsMs: baselines.map((r) => r.ms),
      listeningLoggedMs: runs.map((r) => r.listeningLoggedMs),
      packagesFromDistMs: distRuns.map((r) => r.ms),
      packagesFromDistMedianMs: median(distRuns.map((r) => r.ms)),
      firstStartMs: first.ms,
      // Each start's log lines: when each was written (`loggedMs`) and reached stdout (`arrivedMs`).
      runs,
      distRuns,
      first,
    },
  });
});
