import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestServer } from './helpers/test-server.js';

const README = new URL('../../../README.md', import.meta.url);

/** The `sh` blocks of the root README's "Try it with curl", in order: the walk-through a new user follows. */
async function walkThrough(): Promise<string[]> {
  const text = await readFile(README, 'utf8');
  const start = text.indexOf('### Try it with curl');
  const end = text.indexOf('### Tests', start);
  expect(start).toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  return [...text.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

/**
 * Issue 37: the README's commands, run top to bottom by bash in a folder outside the repository against
 * a real server, as a reader pastes them. What the reader pastes from the server's log (the token of the
 * verification email) is read from the server's log here.
 */
describe('the README walk-through with curl', () => {
  it('works top to bottom from any directory: register, refresh, TOTP, verification, an API key', async () => {
    const blocks = await walkThrough();
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const placeholder = "VERIFY_TOKEN='paste the token here'";
    const script = blocks.join('\n');
    expect(script).toContain(placeholder);
    const server = await startTestServer();
    const dir = await mkdtemp(join(tmpdir(), 'ta-readme-'));
    const logFile = join(dir, 'server.log');
    const flush = setInterval(() => void writeFile(logFile, server.logs.join('')), 100);
    try {
      const fromLog = `until VERIFY_TOKEN=$(grep -o 'verify-email?token=[A-Za-z0-9_-]*' ${logFile} 2>/dev/null | tail -1 | cut -d= -f2) && [ -n "$VERIFY_TOKEN" ]; do sleep 0.2; done`;
      const run = script.replaceAll('http://localhost:4000', server.baseUrl).replace(placeholder, fromLog);
      const child = spawn('bash', ['-c', run], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        out += c;
      });
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        out += c;
      });
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code, out).toBe(0);
      const json = async (file: string) => JSON.parse(await readFile(join(dir, file), 'utf8'));
      // The TOTP section: a code from the shell's function confirmed the factor and answered the challenge.
      expect((await json('challenge.json')).code, out).toBe('mfa_required');
      expect((await json('verified.json')).session.amr, out).toEqual(['pwd', 'otp', 'mfa']);
      // The API key section: created with the session of the second factor, after the verification.
      const key = await json('key.json');
      expect(key.secret, out).toMatch(/^tak_/);
      expect(out).toContain('"forbidden"');
    } finally {
      clearInterval(flush);
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
