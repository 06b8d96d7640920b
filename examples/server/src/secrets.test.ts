import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './config.js';
import { createLogger } from './logger.js';
import { resolveSecrets, SECRETS_FILE } from './secrets.js';

describe('resolveSecrets', () => {
  let dir: string;
  let lines: string[];
  const logger = () => createLogger({ level: 'info', destination: { write: (l: string) => lines.push(l) } });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ta-secrets-'));
    lines = [];
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('uses the configured secrets', async () => {
    const config = parseConfig({
      DATA_DIR: dir,
      JWT_SECRET: 'a'.repeat(32),
      JWT_REFRESH_SECRET: 'b'.repeat(32),
    });
    const secrets = await resolveSecrets(config, logger());
    expect(secrets).toMatchObject({ secret: 'a'.repeat(32), refreshSecret: 'b'.repeat(32) });
    await secrets.keep();
    await expect(stat(join(dir, SECRETS_FILE))).rejects.toThrow();
    expect(lines).toEqual([]);
  });

  it('generates development secrets once, keeps them with mode 0600 and warns', async () => {
    const config = parseConfig({ DATA_DIR: join(dir, 'data') });
    const { keep, ...first } = await resolveSecrets(config, logger());
    expect(first.secret).not.toBe(first.refreshSecret);
    expect(Buffer.byteLength(first.secret)).toBeGreaterThanOrEqual(32);
    const file = join(dir, 'data', SECRETS_FILE);
    // Nothing is written until the configuration was accepted and keep() is called.
    await expect(stat(file)).rejects.toThrow();
    await keep();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(first);
    expect(await resolveSecrets(config, logger())).toMatchObject(first);
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(JSON.parse(line)).toMatchObject({ level: 'warn', msg: expect.stringMatching(/JWT_SECRET/) });
      expect(line).not.toContain(first.secret);
      expect(line).not.toContain(first.refreshSecret);
    }
  });

  it('refuses a damaged secrets file instead of signing with it', async () => {
    await writeFile(join(dir, SECRETS_FILE), JSON.stringify({ secret: 'x', refreshSecret: 'x' }));
    await expect(resolveSecrets(parseConfig({ DATA_DIR: dir }), logger())).rejects.toBeInstanceOf(
      ConfigError,
    );
  });
});
