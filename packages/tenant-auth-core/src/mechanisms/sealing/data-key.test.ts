import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDataSealer, dataKeysProblem, derivedDataKey, SealedValueError } from './data-key.js';

const random = (n: number) => randomBytes(n);
const key = (id: string) => ({ id, key: randomBytes(32) });

describe('data keys (one sealing mechanism for outbox payloads and TOTP secrets)', () => {
  it('stores the key id with the value, and opens it after a rotation with the key kept as previous', () => {
    const old = key('k1');
    const legacy = derivedDataKey(Buffer.from('r'.repeat(32)));
    const before = createDataSealer({ current: old }, legacy, random);
    const sealed = before.seal(Buffer.from('secret'), 'totp', 't|u');
    expect(sealed.split('.').slice(0, 2)).toEqual(['v1', 'k1']);
    const after = createDataSealer({ current: key('k2'), previous: [old] }, legacy, random);
    expect(after.open(sealed, 'totp', 't|u').toString()).toBe('secret');
    expect(after.seal(Buffer.from('x'), 'totp', 't|u').split('.')[1]).toBe('k2');
    // Without the old key, it does not open.
    const forgot = createDataSealer({ current: key('k2') }, legacy, random);
    expect(() => forgot.open(sealed, 'totp', 't|u')).toThrow();
  });

  it('binds a value to its purpose and its row', () => {
    const sealer = createDataSealer({ current: key('k1') }, derivedDataKey(randomBytes(32)), random);
    const sealed = sealer.seal(Buffer.from('secret'), 'totp', 'tenant-a|user-a');
    expect(() => sealer.open(sealed, 'totp', 'tenant-b|user-a')).toThrow();
    expect(() => sealer.open(sealed, 'outbox', 'tenant-a|user-a')).toThrow();
    expect(() => sealer.open(sealed.replace('.k1.', '.k9.'), 'totp', 'tenant-a|user-a')).toThrow();
    expect(() => sealer.open('v1.k1.only', 'totp', 'tenant-a|user-a')).toThrow();
  });

  it("opens 1.1's outbox payloads (no key id) under the key derived from the refresh secret", () => {
    const secret = Buffer.from('refresh-secret-of-a-1.1-deployment-0123');
    const legacy = derivedDataKey(secret);
    // As 1.1 sealed: v1.<iv>.<body>, additional data `id|to|template`.
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', legacy.key, iv, { authTagLength: 16 });
    cipher.setAAD(Buffer.from('id|ada@example.com|invitation'));
    const body = Buffer.concat([cipher.update('{"subject":"s"}'), cipher.final(), cipher.getAuthTag()]);
    const payload = `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
    const sealer = createDataSealer({ current: key('k1') }, legacy, random);
    expect(sealer.open(payload, 'outbox', 'id|ada@example.com|invitation').toString()).toBe(
      '{"subject":"s"}',
    );
    expect(() => sealer.open(payload, 'totp', 'id|ada@example.com|invitation')).toThrow();
  });

  it('names why a value does not open with a stable code, and never the value', () => {
    const a = key('kA');
    const legacy = derivedDataKey(randomBytes(32));
    const sealed = createDataSealer({ current: a }, legacy, random).seal(
      Buffer.from('s3cret'),
      'totp',
      't|u',
    );
    const rotated = createDataSealer({ current: key('kB') }, legacy, random);
    const failure = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        expect(err).toBeInstanceOf(SealedValueError);
        expect((err as Error).message).not.toContain(sealed);
        return { code: (err as SealedValueError).code, keyId: (err as SealedValueError).keyId };
      }
      throw new Error('expected the value not to open');
    };
    expect(failure(() => rotated.open(sealed, 'totp', 't|u'))).toEqual({
      code: 'unknown_data_key',
      keyId: 'kA',
    });
    const withA = createDataSealer({ current: key('kB'), previous: [a] }, legacy, random);
    expect(failure(() => withA.open(sealed, 'totp', 't|other'))).toEqual({
      code: 'sealed_value_not_authentic',
      keyId: 'kA',
    });
    // Another key under the same id (a wrong ENCRYPTION_KEY_PREVIOUS with a hand-made id) is not authentic either.
    const impostor = createDataSealer({ current: key('kB'), previous: [key('kA')] }, legacy, random);
    expect(failure(() => impostor.open(sealed, 'totp', 't|u')).code).toBe('sealed_value_not_authentic');
    for (const bad of ['', 'v1', 'v2.kA.x.y', 'v1.kA.only', 'v1.bad id.x.y', 'v1..x.y'])
      expect(failure(() => withA.open(bad, 'totp', 't|u')).code).toBe('malformed_sealed_value');
    // The old format (no key id) is 1.1's outbox only.
    expect(failure(() => withA.open('v1.aaaa.bbbb', 'totp', 't|u')).code).toBe('malformed_sealed_value');
  });

  it('reads the key id a value names, r0 for the old format', () => {
    const sealer = createDataSealer({ current: key('k1') }, derivedDataKey(randomBytes(32)), random);
    expect(sealer.keyIdOf(sealer.seal(Buffer.from('x'), 'totp', 'b'))).toBe('k1');
    expect(sealer.keyIdOf('v1.aaaa.bbbb')).toBe('r0');
    expect(sealer.keyIdOf('v1.k9.aaaa.bbbb')).toBe('k9');
    expect(sealer.keyIdOf('nonsense')).toBeNull();
  });

  it('refuses malformed keys with the option named', () => {
    expect(dataKeysProblem({ current: { id: 'k1', key: randomBytes(16) } })?.option).toBe(
      'dataKeys.current.key',
    );
    expect(dataKeysProblem({ current: { id: 'bad id', key: randomBytes(32) } })?.option).toBe(
      'dataKeys.current.id',
    );
    expect(
      dataKeysProblem({ current: key('k1'), previous: [{ id: 'k1', key: randomBytes(32) }] })?.option,
    ).toBe('dataKeys.previous[0].id');
    expect(dataKeysProblem({ current: key('r0') })?.option).toBe('dataKeys.current.id');
    expect(dataKeysProblem({ current: key('k1'), previous: [key('k0')] })).toBeUndefined();
  });
});
