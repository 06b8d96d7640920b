import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** examples/server: where `pnpm start` runs `node --import tsx src/main.ts`. */
const SERVER_DIR = fileURLToPath(new URL('../../../server', import.meta.url));

/** One JSON log line of the server. */
export type LogLine = Record<string, unknown>;

/** The reference server running as a child process, exactly as operators start it. */
export interface ReferenceServer {
  /** `http://localhost:<port>`: Chromium treats localhost as a secure context, so `Secure` cookies stick. */
  origin: string;
  /** Every parsed log line so far, in order. */
  readonly log: readonly LogLine[];
  /** Resolves with the first line at index `from` or later that matches (lines already seen included). */
  waitForLog(match: (line: LogLine) => boolean, from?: number): Promise<LogLine>;
  /** SIGTERM, then resolves with the exit code once the process is gone. */
  stop(): Promise<number | string>;
}

/**
 * Spawns `node --import tsx src/main.ts` in examples/server with `env` (on top of PATH and HOME only),
 * and resolves once it logs that it listens. `PORT=0` picks a free port, read back from that line.
 * Rejects with the server's output if it exits first.
 *
 * @example
 * const server = await startReferenceServer({ PORT: '0', DATABASE_URL: 'memory:', LOG_LEVEL: 'info' });
 * await server.stop();
 */
export async function startReferenceServer(env: Record<string, string>): Promise<ReferenceServer> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: SERVER_DIR,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: LogLine[] = [];
  const raw: string[] = [];
  let stderr = '';
  let buffer = '';
  let waiters: { match: (line: LogLine) => boolean; from: number; resolve: (line: LogLine) => void }[] = [];
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  const output = () => `stdout:\n${raw.join('\n')}\nstderr:\n${stderr}`;

  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const text = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      raw.push(text);
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        continue;
      }
      log.push(line);
      const index = log.length - 1;
      waiters = waiters.filter((w) => {
        if (index < w.from || !w.match(line)) return true;
        w.resolve(line);
        return false;
      });
    }
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });

  const waitForLog = (match: (line: LogLine) => boolean, from = 0): Promise<LogLine> => {
    const seen = log.slice(from).find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      waiters.push({ match, from, resolve });
      void exited.then((code) =>
        reject(new Error(`the reference server exited (${code}) before the expected log line.\n${output()}`)),
      );
    });
  };

  let listening: LogLine;
  try {
    listening = await waitForLog((l) => typeof l.msg === 'string' && l.msg.includes('listening on'));
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  const port = Number(listening.port);
  if (!Number.isInteger(port) || port <= 0) {
    child.kill('SIGKILL');
    throw new Error(`the listening log line carries no port.\n${output()}`);
  }
  return {
    origin: `http://localhost:${port}`,
    log,
    waitForLog,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
