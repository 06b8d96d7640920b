import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { lowerThreadPoolPriority } from '../src/thread-pool-priority.js';
import { SERVER_DIR, startChildServer } from './helpers/child-server.js';
import { TEST_SECRETS } from './helpers/test-server.js';

/** The nice value of each thread of process `pid`, by name (`comm`), read from /proc. */
async function threadNices(pid: number): Promise<{ name: string; nice: number; main: boolean }[]> {
  const tasks = `/proc/${pid}/task`;
  const threads = [];
  for (const tid of await readdir(tasks)) {
    const stat = await readFile(`${tasks}/${tid}/stat`, 'utf8');
    // Fields after "(comm)": state is field 3, nice field 19.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const name = (await readFile(`${tasks}/${tid}/comm`, 'utf8')).trim();
    threads.push({ name, nice: Number(fields[16]), main: Number(tid) === pid });
  }
  return threads;
}

/** Runs `lowerThreadPoolPriority(nice)` in a new Node process (started at `startNice`); its answer and its threads' nice values. */
function inChild(nice: number, env: Record<string, string> = {}, startNice = 0) {
  const script = `
    const { lowerThreadPoolPriority } = await import('./src/thread-pool-priority.ts');
    const found = await lowerThreadPoolPriority(${nice});
    process.stdout.write(JSON.stringify({ found }) + '\\n');
    setTimeout(() => {}, 60_000);
  `;
  const node = [process.execPath, '--import', 'tsx', '--input-type=module', '-e', script];
  const [command = '', ...args] = startNice > 0 ? ['nice', '-n', String(startNice), ...node] : node;
  const child = spawn(command, args, {
    cwd: SERVER_DIR,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise<{ found: number; threads: { name: string; nice: number; main: boolean }[] }>(
    (resolve, reject) => {
      child.stdout.setEncoding('utf8').once('data', async (line: string) => {
        try {
          const { found } = JSON.parse(line) as { found: number };
          resolve({ found, threads: await threadNices(child.pid ?? 0) });
        } catch (err) {
          reject(err);
        } finally {
          child.kill();
        }
      });
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`the child exited (${code}) before answering`)));
    },
  );
}

describe.skipIf(process.platform !== 'linux')(
  'the thread pool priority (Linux)',
  { timeout: 120_000 },
  () => {
    it('raises the nice value of every libuv-worker thread and of nothing else', async () => {
      const { found, threads } = await inChild(7, { UV_THREADPOOL_SIZE: '2' });
      const workers = threads.filter((t) => t.name === 'libuv-worker');
      expect(found).toBe(2);
      expect(workers.map((t) => t.nice)).toEqual([7, 7]);
      expect(threads.filter((t) => t.name !== 'libuv-worker').every((t) => t.nice === 0)).toBe(true);
      expect(threads.find((t) => t.main)?.nice).toBe(0);
    });

    it('leaves threads already at a higher nice where they are (a server started with nice)', async () => {
      const { found, threads } = await inChild(7, { UV_THREADPOOL_SIZE: '2' }, 15);
      expect(found).toBe(2);
      expect(threads.map((t) => t.nice)).toEqual(threads.map(() => 15));
    });

    it('changes nothing with nice 0', async () => {
      const { found, threads } = await inChild(0);
      expect(found).toBe(0);
      expect(threads.every((t) => t.nice === 0)).toBe(true);
    });

    it('refuses a nice value outside 0 to 19 before changing anything', async () => {
      await expect(lowerThreadPoolPriority(20)).rejects.toThrow(RangeError);
      await expect(lowerThreadPoolPriority(-1)).rejects.toThrow(RangeError);
    });

    it('pnpm start puts the pool at THREAD_POOL_NICE (10 by default) before it says it listens', async () => {
      const server = await startChildServer({
        DATABASE_URL: 'memory:',
        PORT: '0',
        BCRYPT_COST: '4',
        ...TEST_SECRETS,
      });
      try {
        const threads = await threadNices(server.child.pid ?? 0);
        const workers = threads.filter((t) => t.name === 'libuv-worker');
        expect(workers).toHaveLength(4);
        expect(workers.every((t) => t.nice === 10)).toBe(true);
        expect(threads.find((t) => t.main)?.nice).toBe(0);
      } finally {
        server.kill('SIGTERM');
        await server.exited;
      }
    });
  },
);
