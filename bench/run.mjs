// `pnpm bench`: runs the benchmark suite against the built packages (run `pnpm build` first) and the
// reference server, prints one table of every figure with the baseline it was measured against in the
// same run, and writes bench/results/latest.json (and latest.md, the same table in Markdown).
//
//   pnpm bench                 every benchmark, in the order of BENCHMARKS.md
//   pnpm bench read refresh    only the benchmarks whose file name contains one of the words
//   pnpm bench --strict        exit 1 when a figure misses its target (default: only when a benchmark breaks)
//
// Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test: a throwaway database is
// created and dropped per benchmark), BENCH_REDIS_URL (default redis://127.0.0.1:6379: keys under a prefix
// of their own, deleted afterwards), BENCH_DURATION (seconds of load per phase, default 5),
// BENCH_BCRYPT_COST (default 12), BENCH_MEMORY_CYCLES (default 20000), BENCH_CLEANUP_SESSIONS (default
// 1000000), BENCH_SCIM_USERS (default 1000), BENCH_SCIM_SESSIONS and BENCH_SCIM_KEYS (default 100 and 10),
// BENCH_THREAD_POOL_NICE (default: the reference server's, 10), BENCH_STARTUP_RUNS (default 3). A
// benchmark whose service is missing is skipped, not failed.
//
// Every figure is a ratio against a baseline measured in the same run: this machine is shared and noisy,
// so absolute numbers from different runs are not comparable. Each benchmark runs in its own process, one
// at a time; the CPU that other processes used meanwhile is recorded beside it ("other load").
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgresCpuSeconds, redisCpuSeconds } from './lib/harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const ORDER = [
  'read',
  'apikey-read',
  'auth-overhead',
  'login',
  'login-totp',
  'registration',
  'isolation',
  'refresh',
  'webhooks',
  'scim-provisioning',
  'scim-deactivation',
  'enumeration',
  'cleanup',
  'rate-limit-store',
  'memory',
  'sizing',
  'startup',
];

const args = process.argv.slice(2);
const strict = args.includes('--strict');
const words = args.filter((a) => !a.startsWith('--'));

const missing = ['tenant-auth-core', 'tenant-auth-koa', 'tenant-auth-mikro-orm', 'tenant-auth-redis'].filter(
  (p) => !existsSync(join(root, 'packages', p, 'dist', 'index.js')),
);
if (missing.length > 0) {
  console.error(`bench: ${missing.join(', ')} not built; run \`pnpm build\` first`);
  process.exit(1);
}

const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .map((f) => f.slice(0, -'.bench.mjs'.length))
  .sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b))
  .filter((name) => words.length === 0 || words.some((w) => name.includes(w)));

/** Busy CPU seconds of the whole machine so far (every core, user + system + irq, not idle or iowait). */
function machineBusySeconds() {
  const [cpu] = readFileSync('/proc/stat', 'utf8').split('\n');
  const [, user, nice, system, , , irq, softirq, steal] = cpu.trim().split(/\s+/).map(Number);
  return (user + nice + system + irq + softirq + (steal ?? 0)) / 100;
}

/** CPU seconds of this process's reaped descendants (the benchmarks and the servers they started). */
function childrenCpuSeconds() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** CPU seconds of PostgreSQL and Redis, the services every benchmark may use, their exited children included. */
function servicesCpuSeconds() {
  return (postgresCpuSeconds() ?? 0) + (redisCpuSeconds() ?? 0);
}

function machine() {
  const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  return {
    cores: availableParallelism(),
    cpu: /model name\s*:\s*(.*)/.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? 'unknown',
    mhz: Number(/cpu MHz\s*:\s*(.*)/.exec(cpuinfo)?.[1] ?? cpus()[0]?.speed ?? 0),
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

const started = Date.now();
const info = machine();
console.log(
  `tenant-auth benchmarks: ${info.cores} cores (${info.cpu}), ${info.memoryGiB} GiB, Node ${info.node}; load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
const rows = [];
const runs = [];
let sizing;
let broken = false;
for (const name of files) {
  console.log(`\n## ${name}`);
  const resultFile = join(tmpdir(), `tenant-auth-bench-${process.pid}-${name}.json`);
  rmSync(resultFile, { force: true });
  const busy0 = machineBusySeconds();
  const ours0 = childrenCpuSeconds();
  const services0 = servicesCpuSeconds();
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(here, `${name}.bench.mjs`)], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, BENCH_RESULT_FILE: resultFile },
  });
  const [code] = await once(child, 'exit');
  const seconds = (performance.now() - t0) / 1000;
  // What the machine was busy with besides this benchmark, its servers, PostgreSQL and Redis: another
  // tenant, and the kernel's own work (interrupts, the loopback network's soft interrupts).
  const others =
    machineBusySeconds() - busy0 - (childrenCpuSeconds() - ours0) - (servicesCpuSeconds() - services0);
  // The column shows no negative load; the runs in latest.json keep the raw figure (tick-based process
  // accounting against the machine's counters can come out a little below zero on a quiet machine).
  const otherCores = Math.max(0, others / seconds);
  let result = { rows: [] };
  if (existsSync(resultFile)) {
    result = JSON.parse(readFileSync(resultFile, 'utf8'));
    rmSync(resultFile, { force: true });
  }
  if (code !== 0) broken = true;
  for (const row of result.rows) rows.push({ ...row, file: `bench/${name}.bench.mjs`, otherCores });
  if (code !== 0 && result.rows.length === 0) {
    rows.push({
      id: name,
      benchmark: `${name} (broke: see its output)`,
      measured: '-',
      baseline: '-',
      ratio: null,
      target: '-',
      verdict: 'ERROR',
      file: `bench/${name}.bench.mjs`,
      otherCores,
    });
  }
  if (result.sizing) sizing = result.sizing;
  runs.push({
    file: `bench/${name}.bench.mjs`,
    seconds: Math.round(seconds * 10) / 10,
    exitCode: code,
    otherCores: Math.round(otherCores * 100) / 100,
    otherCoresUnclamped: Math.round((others / seconds) * 1000) / 1000,
  });
}
const totalSeconds = (Date.now() - started) / 1000;

const cell = (s) => String(s).replaceAll('|', '\\|');
const ratioText = (r) => (r === null || r === undefined ? '-' : r.toFixed(3));
const table = [
  '| benchmark | measured | baseline (same run) | ratio | target | verdict | other load |',
  '|---|---|---|---|---|---|---|',
  ...rows
    // The sizing counts have their own table below; a skipped sizing benchmark stays here, saying why.
    .filter((r) => !r.id.startsWith('sizing.') || r.verdict === 'SKIP')
    .map(
      (r) =>
        `| ${cell(r.benchmark)} | ${cell(r.measured)} | ${cell(r.baseline)} | ${ratioText(r.ratio)} | ${cell(r.target)} | ${r.verdict} | ${r.otherCores.toFixed(2)} cores |`,
    ),
];
const sizingTable =
  sizing && Object.keys(sizing).length > 0
    ? [
        '| operation | SQL statements | of which writes | transactions | Redis commands |',
        '|---|---|---|---|---|',
        ...Object.entries(sizing).map(
          ([op, s]) =>
            `| ${op} | ${s.statements ?? '-'} | ${s.writes ?? '-'} | ${s.transactions ?? '-'} | ${s.redisCommands ?? '-'} |`,
        ),
      ]
    : [];
const command = `pnpm bench${args.length ? ` ${args.join(' ')}` : ''}`;
const summary = `${command}: ${Math.round(totalSeconds)} s in all, ${new Date(started).toISOString()}, ${info.cores} cores (${info.cpu}), ${info.memoryGiB} GiB, Node ${info.node}`;
console.log(
  `\n${summary}\n\n${table.join('\n')}${sizingTable.length ? `\n\n${sizingTable.join('\n')}` : ''}`,
);

mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(
  join(here, 'results', 'latest.json'),
  `${JSON.stringify(
    {
      command,
      date: new Date(started).toISOString(),
      totalSeconds: Math.round(totalSeconds),
      machine: { ...info, loadAverageAtEnd: loadavg().map((x) => Math.round(x * 100) / 100) },
      env: Object.fromEntries(
        Object.entries(process.env).filter(([k]) => k.startsWith('BENCH_') && k !== 'BENCH_RESULT_FILE'),
      ),
      runs,
      rows,
      sizing: sizing ?? null,
    },
    null,
    2,
  )}\n`,
);
writeFileSync(
  join(here, 'results', 'latest.md'),
  `${summary}\n\n${table.join('\n')}\n${sizingTable.length ? `\n${sizingTable.join('\n')}\n` : ''}`,
);
const failed = rows.filter((r) => r.verdict === 'FAIL').length;
console.log(`\nwrote bench/results/latest.json and latest.md; ${failed} figure(s) miss their target`);
process.exit(broken || (strict && failed > 0) ? 1 : 0);
