import { createHash } from 'node:crypto';
import { createMemoryStores, MemoryRateLimitStore } from 'tenant-auth-core';
import type { RateLimitHitOptions } from 'tenant-auth-core/store-kit';
import { describe, expect, it } from 'vitest';
import { createAuth } from './auth.js';
import { parseConfig } from './config.js';

const SECRET = 'q3Z8vJx1Wm4pT0bL6yN2rK9sD5hF7gC3aE1uI8oV4wX';
const REFRESH = 'Hn2Lk7Qw9Ep4Rt1Yu6Io3Pa8Sd5Fg0Jh2Kl9Zx7Cv4Bm';

/** A real memory store that keeps every key it is asked about. */
class RecordingStore extends MemoryRateLimitStore {
  readonly keys: string[] = [];
  override hit(key: string, options: RateLimitHitOptions) {
    this.keys.push(key);
    return super.hit(key, options);
  }
}

describe('the per-account rate-limit keys of the reference server (SECURITY.md, password guessing)', () => {
  it('are HMACs keyed from the refresh secret: the store holds no address and no plain hash of one', async () => {
    const store = new RecordingStore();
    const auth = createAuth(parseConfig({ BCRYPT_COST: '4' }), {
      stores: createMemoryStores(),
      accessToken: { secret: SECRET },
      refreshSecret: REFRESH,
      encryptionKey: new Uint8Array(32).fill(7),
      rateLimitStore: store,
      onEvent: () => {},
      mailer: { send: async () => {} },
      logger: { error: () => {}, warn: () => {}, info: () => {} } as never,
    });
    const email = 'ada@example.com';
    await auth.login({ email, password: 'Wrong-Password-123' }, { ipAddress: '203.0.113.9' }).catch(() => {});
    await auth.forgotPassword({ email }, { ipAddress: '203.0.113.9' });
    await auth.whenIdle();
    const plain = createHash('sha256').update(email).digest('hex').slice(0, 32);
    // The login throttle and the mailbox budget were both counted...
    expect(store.keys.some((k) => k.startsWith('account:'))).toBe(true);
    expect(store.keys.some((k) => k.startsWith('mailbox:'))).toBe(true);
    // ...under keys that hold neither the address nor its plain SHA-256.
    for (const key of store.keys) {
      expect(key).not.toContain(email);
      expect(key).not.toContain(plain);
    }
    await store.close();
  });
});
