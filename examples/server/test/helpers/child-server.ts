import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The server package folder: where `pnpm start` runs `node --import tsx src/main.ts`. */
export const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));

export interface ChildServer {
  child: ChildProcess;
  /** Every stdout line so far (JSON log lines). */
  lines: string[];
  stderr: () => string;
  url: string;
  port: number;
  /** Resolves with the first log line matching, including lines already seen. */
  waitForLine(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
}

/**
 * Starts `node --import tsx src/main.ts` as `pnpm start` does, with `env` added to a minimal
 * environment, and resolves once it logs that it listens (or rejects with its stderr if it exits).
 */
export async function startChildServer(env: Record<string, string>): Promise<ChildServer> {
  const proc = spawnServer(env);
  const listening = await proc.waitForLine(
    (l) => typeof l.msg === 'string' && l.msg.includes('listening on'),
  );
  const port = Number(listening.port);
  return { ...proc, port, url: `http://127.0.0.1:${port}` };
}

/** Spawns the server without waiting for anything. */
export function spawnServer(env: Record<string, string>): Omit<ChildServer, 'url' | 'port'> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: SERVER_DIR,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  let buffer = '';
  const waiters: {
    match: (l: Record<string, unknown>) => boolean;
    resolve: (l: Record<string, unknown>) => void;
  }[] = [];
  const parse = (line: string): Record<string, unknown> | undefined => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let nl = buffer.indexOf('\n');
    while (nl !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      lines.push(line);
      const parsed = parse(line);
      if (parsed) {
        for (const w of [...waiters]) {
          if (w.match(parsed)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(parsed);
          }
        }
      }
      nl = buffer.indexOf('\n');
    }
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    kill: (signal = 'SIGTERM') => {
      child.kill(signal);
    },
    waitForLine(match) {
      for (const line of lines) {
        const parsed = parse(line);
        if (parsed && match(parsed)) return Promise.resolve(parsed);
      }
      return new Promise((resolve, reject) => {
        waiters.push({ match, resolve });
        void exited.then((code) =>
          reject(
            new Error(
              `server exited (${code}) before the expected log line.\nstdout:\n${lines.join('\n')}\nstderr:\n${stderr}`,
            ),
          ),
        );
      });
    },
  };
}
