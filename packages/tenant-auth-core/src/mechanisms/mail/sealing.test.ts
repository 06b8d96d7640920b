import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../memory/memory-stores.js';
import { owner, setup } from '../../testing/test-helpers.js';
import { createMailSeal } from './sealing.js';

const content = { subject: 'Reset', text: 'https://app.test/reset-password?token=secret', html: '<p>…</p>' };
const row = { id: '01900000-0000-7000-8000-000000000001', to: 'ada@example.com', template: 'password_reset' };

describe('the outbox seal is bound to its row (SECURITY.md, links read from a database copy)', () => {
  it('opens only for the id, recipient and template it was sealed for', () => {
    const seal = createMailSeal(Buffer.from('k'.repeat(32)), (n) => randomBytes(n));
    const sealed = seal.seal(content, row);
    expect(seal.open(sealed, row)).toEqual(content);
    for (const moved of [
      { ...row, id: '01900000-0000-7000-8000-000000000002' },
      { ...row, to: 'mallory@example.com' },
      { ...row, template: 'invitation' },
      // The separator cannot be used to shift a field into another.
      { id: row.id, to: `ada@example.com|password_reset`, template: '' },
    ]) {
      expect(() => seal.open(sealed, moved), JSON.stringify(moved)).toThrow();
    }
  });

  it('carries the full 16-byte tag, and refuses a payload cut to a shorter one', () => {
    const seal = createMailSeal(Buffer.from('k'.repeat(32)), (n) => randomBytes(n));
    const sealed = seal.seal(content, row);
    const [version, kid, iv, body = ''] = sealed.split('.');
    const bytes = Buffer.from(body, 'base64url');
    expect(bytes.length).toBe(Buffer.byteLength(JSON.stringify(content)) + 16);
    const cut = bytes.subarray(0, bytes.length - 4).toString('base64url');
    expect(() => seal.open(`${version}.${kid}.${iv}.${cut}`, row)).toThrow();
  });

  it('sends nothing when a payload reaches another recipient: the message is dead', async () => {
    const real = createMemoryStores();
    // What a write to the database could do: point a row with a live link at another address.
    const stores = {
      ...real,
      outbox: {
        ...real.outbox,
        claim: async (options: Parameters<typeof real.outbox.claim>[0]) =>
          (await real.outbox.claim(options)).map((m) => ({ ...m, to: 'mallory@example.com' })),
      },
    };
    const t = setup({ stores });
    await owner(t.auth, 'ada@example.com');
    const result = await t.auth.deliverMail();
    expect(result).toMatchObject({ delivered: 0, dead: 1 });
    expect(t.inbox.messages).toEqual([]);
  });
});
