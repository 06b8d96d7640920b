import { assertActive, assertStillActive } from '../../mechanisms/deactivation.js';
import { optionalText } from '../../mechanisms/inputs/inputs.js';
import type { Services } from '../../mechanisms/services.js';
import { assertNotHeldToSso, heldToSso, ssoRequired } from '../../mechanisms/sso/sso-hold.js';
import {
  auditCounterRegression,
  recordPasskeySignIn,
  withPasskey,
} from '../../mechanisms/webauthn/passkey-ceremonies.js';
import type { TokenResponse } from '../../vocabulary/claims.js';
import { TenantAuthError, validationError } from '../../vocabulary/errors.js';
import type { RequestContext } from '../../vocabulary/records.js';
import type { PasskeyLoginInput } from './passkey-types.js';

/** The one answer to a passkey login that fails, whatever failed (no hint for an attacker). */
const invalidPasskey = () => new TenantAuthError('invalid_credentials', 'The passkey could not sign you in.');

/** @internal Passwordless sign-in with a discoverable passkey (user verification required). */
export function createPasskeyLogin(services: Services) {
  const { stores, clock, events, sessionTokens, ceremonies } = services;

  async function passkeyLoginOptions() {
    return ceremonies.requestOptions('login', null);
  }

  async function loginWithPasskey(
    input: PasskeyLoginInput,
    context: RequestContext = {},
  ): Promise<TokenResponse> {
    const deviceInfo = optionalText(input?.deviceInfo, 'deviceInfo');
    if (!deviceInfo.ok) throw validationError([deviceInfo.error]);
    const check = await ceremonies.verifyAssertion('login', input?.credential, null);
    await auditCounterRegression(events, check, context);
    if (!check.ok) throw invalidPasskey();
    const user = await stores.users.findById(check.passkey.tenantId, check.passkey.userId);
    if (!user) throw invalidPasskey();
    assertActive(user);
    // Single sign-on's `enforce`: a user held to it signs in through the provider only (403 sso_required).
    await assertNotHeldToSso(stores, user);
    const made = await sessionTokens.newSession(user, context, deviceInfo.value, withPasskey([]));
    const used = await events.transaction(async (tx, record) => {
      // Turning SSO's `enforce` on takes the tenant lock: read again under it, no passkey session of a held
      // user outlives the revocation that came with it.
      await tx.tenants.lock(user.tenantId);
      if (await heldToSso(tx, user)) throw ssoRequired();
      await assertStillActive(tx, user);
      const signIn = { user, check, session: made.session, at: clock.now(), context };
      return recordPasskeySignIn(tx, record, events, signIn);
    });
    if (!used) throw invalidPasskey();
    return sessionTokens.respond(made.session, user, made.refreshToken, true);
  }

  return { passkeyLoginOptions, loginWithPasskey };
}
