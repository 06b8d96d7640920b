import { describe, expect, it } from 'vitest';
import { setup } from '../../testing/test-helpers.js';
import { isTenantAuthError } from '../../vocabulary/errors.js';
import { isRpIdOf, resolveRelyingParty } from './relying-party.js';

/** The option an `invalid_configuration` names, or `null`. */
function refusedOption(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (err) {
    return isTenantAuthError(err, 'invalid_configuration') ? (err.option ?? 'none') : 'other';
  }
}

describe('the relying party', () => {
  it('takes an RP ID that is the host of each origin or a registrable suffix of it', () => {
    expect(
      resolveRelyingParty({
        rpId: 'example.com',
        origins: ['https://example.com', 'https://app.example.com', 'https://a.b.example.com:8443'],
      }),
    ).toEqual({
      id: 'example.com',
      name: 'tenant-auth',
      origins: ['https://example.com', 'https://app.example.com', 'https://a.b.example.com:8443'],
    });
    expect(resolveRelyingParty({ rpId: 'localhost', origins: ['http://localhost:5173'] }).id).toBe(
      'localhost',
    );
    expect(isRpIdOf('example.com', 'badexample.com')).toBe(false);
    expect(isRpIdOf('example.co.uk', 'app.example.co.uk')).toBe(true);
    expect(isRpIdOf('localhost', 'app.localhost')).toBe(true);
  });

  it('refuses a public suffix as the RP ID (ICANN or private section), naming the RP ID', () => {
    for (const [rpId, origin] of [
      ['com', 'https://app.example.com'],
      ['co.uk', 'https://app.example.co.uk'],
      ['uk', 'https://app.example.co.uk'],
      ['github.io', 'https://ada.github.io'],
    ] as const) {
      expect(isRpIdOf(rpId, new URL(origin).hostname)).toBe(false);
      expect(refusedOption(() => resolveRelyingParty({ rpId, origins: [origin] }))).toBe('webauthn.rpId');
    }
  });

  it('refuses an RP ID that is not a suffix of every origin, naming the RP ID', () => {
    for (const origins of [
      ['https://example.org'],
      ['https://badexample.com'],
      ['https://app.example.com', 'https://other.test'],
    ])
      expect(refusedOption(() => resolveRelyingParty({ rpId: 'example.com', origins }))).toBe(
        'webauthn.rpId',
      );
    expect(
      refusedOption(() => resolveRelyingParty({ rpId: 'app.example.com', origins: ['https://example.com'] })),
    ).toBe('webauthn.rpId');
  });

  it('refuses a malformed RP ID, an IP address, an origin with a path, and http outside localhost', () => {
    for (const rpId of ['https://example.com', 'Example.com', 'example.com:443', '127.0.0.1', ''])
      expect(refusedOption(() => resolveRelyingParty({ rpId, origins: ['https://example.com'] }))).toBe(
        'webauthn.rpId',
      );
    for (const origins of [[], ['https://example.com/app'], ['http://example.com'], ['not a url']])
      expect(refusedOption(() => resolveRelyingParty({ rpId: 'example.com', origins }))).toBe(
        'webauthn.origins',
      );
  });

  it('is checked by createTenantAuth, and without it passkeys are off (invalid_configuration)', async () => {
    expect(
      refusedOption(() => setup({ webauthn: { rpId: 'example.com', origins: ['https://example.org'] } })),
    ).toBe('webauthn.rpId');
    const { auth } = setup();
    await expect(auth.passkeyLoginOptions()).rejects.toMatchObject({ code: 'invalid_configuration' });
    const { auth: on } = setup({ webauthn: { rpId: 'example.com', origins: ['https://app.example.com'] } });
    const options = await on.passkeyLoginOptions();
    expect(options.rpId).toBe('example.com');
    expect(options.userVerification).toBe('required');
    expect(options.allowCredentials).toBeUndefined();
    expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
