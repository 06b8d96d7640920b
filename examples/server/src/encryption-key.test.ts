import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './config.js';
import { ENCRYPTION_KEY_FILE, resolveEncryptionKey } from './encryption-key.js';
import { createLogger } from './logger.js';

const KEY = 'W9cQeF2da1jLD8OOWHzwKglR98V0FdmsYxux0olmio0';

describe('ENCRYPTION_KEY', () => {
  let dir: string;
  let lines: string[];
  const logger = () => createLogger({ level: 'info', destination: { write: (l: string) => lines.push(l) } });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ta-encryption-key-'));
    lines = [];
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('is 32 bytes of base64url, refused otherwise without repeating the value', () => {
    expect(parseConfig({ ENCRYPTION_KEY: KEY }).mfa.encryptionKey).toEqual(
      new Uint8Array(Buffer.from(KEY, 'base64url')),
    );
    for (const bad of ['short', Buffer.alloc(16).toString('base64url'), `${KEY}AAAA`, `${KEY.slice(1)}+`]) {
      try {
        parseConfig({ ENCRYPTION_KEY: bad });
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        expect((err as ConfigError).issues).toEqual([
          { variable: 'ENCRYPTION_KEY', message: 'must be 32 random bytes in base64url (43 characters)' },
        ]);
        expect((err as Error).message).not.toContain(bad);
      }
    }
  });

  it('is required in production, with a message naming it', () => {
    try {
      parseConfig({ NODE_ENV: 'production' });
      expect.unreachable();
    } catch (err) {
      const issue = (err as ConfigError).issues.find((i) => i.variable === 'ENCRYPTION_KEY');
      expect(issue?.message).toMatch(/is required when NODE_ENV=production \(32 random bytes/);
    }
  });

  it('ENCRYPTION_KEY_PREVIOUS: comma-separated keys checked as ENCRYPTION_KEY is, the entry named, never the value', () => {
    const older = [randomBytes(32), randomBytes(32)].map((b) => b.toString('base64url'));
    expect(
      parseConfig({ ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_PREVIOUS: ` ${older[0]} ,${older[1]}` }).mfa
        .previousEncryptionKeys,
    ).toEqual(older.map((k) => new Uint8Array(Buffer.from(k, 'base64url'))));
    const refusal = (env: Record<string, string>) => {
      try {
        parseConfig(env);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        for (const value of Object.values(env)) expect((err as Error).message).not.toContain(value);
        return (err as ConfigError).issues;
      }
      throw new Error('expected a refusal');
    };
    expect(refusal({ ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_PREVIOUS: `${older[0]},short` })).toEqual([
      {
        variable: 'ENCRYPTION_KEY_PREVIOUS',
        message:
          'entry 2 of 2 must be 32 random bytes in base64url (43 characters); separate keys with commas',
      },
    ]);
    expect(refusal({ ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_PREVIOUS: `${older[0]},${KEY}` })).toEqual([
      {
        variable: 'ENCRYPTION_KEY_PREVIOUS',
        message: 'holds ENCRYPTION_KEY itself: list only the older keys',
      },
    ]);
    expect(refusal({ ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_PREVIOUS: `${older[0]},${older[0]}` })).toEqual([
      { variable: 'ENCRYPTION_KEY_PREVIOUS', message: 'holds one key twice' },
    ]);
  });

  it('reads REAUTH_MAX_AGE_SECONDS, MFA_FAILURES_PER_ACCOUNT and TOTP_ISSUER, unset by default', () => {
    expect(parseConfig({}).mfa).toEqual({
      encryptionKey: undefined,
      previousEncryptionKeys: [],
      reauthMaxAgeSeconds: undefined,
      failuresPerAccount: undefined,
      totpIssuer: undefined,
    });
    const mfa = parseConfig({
      REAUTH_MAX_AGE_SECONDS: '300',
      MFA_FAILURES_PER_ACCOUNT: '5',
      TOTP_ISSUER: 'Acme',
    }).mfa;
    expect(mfa).toMatchObject({ reauthMaxAgeSeconds: 300, failuresPerAccount: 5, totpIssuer: 'Acme' });
    expect(() => parseConfig({ REAUTH_MAX_AGE_SECONDS: 'soon' })).toThrow(/REAUTH_MAX_AGE_SECONDS/);
  });

  it('uses the configured key and keeps nothing', async () => {
    const resolved = await resolveEncryptionKey(
      parseConfig({ DATA_DIR: dir, ENCRYPTION_KEY: KEY }),
      logger(),
    );
    expect(Buffer.from(resolved.key).toString('base64url')).toBe(KEY);
    await resolved.keep();
    await expect(stat(join(dir, ENCRYPTION_KEY_FILE))).rejects.toThrow();
    expect(lines).toEqual([]);
  });

  it('generates a development key once, keeps it with mode 0600, warns without the key, and reads it back', async () => {
    const config = parseConfig({ DATA_DIR: join(dir, 'data') });
    const first = await resolveEncryptionKey(config, logger());
    expect(first.key).toHaveLength(32);
    const file = join(dir, 'data', ENCRYPTION_KEY_FILE);
    await expect(stat(file)).rejects.toThrow();
    await first.keep();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = Buffer.from(first.key).toString('base64url');
    expect((await readFile(file, 'utf8')).trim()).toBe(text);
    expect((await resolveEncryptionKey(config, logger())).key).toEqual(first.key);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      level: 'warn',
      msg: expect.stringMatching(/ENCRYPTION_KEY/),
    });
    expect(lines[0]).not.toContain(text);
  });

  it('refuses a damaged key file instead of sealing with another key', async () => {
    await writeFile(join(dir, ENCRYPTION_KEY_FILE), 'not a key');
    await expect(resolveEncryptionKey(parseConfig({ DATA_DIR: dir }), logger())).rejects.toBeInstanceOf(
      ConfigError,
    );
  });
});
