import type { ReauthenticateSsoRequest, StartSsoRequest } from './contract.generated.js';
import type { Call } from './operations.js';

/**
 * Single sign-on from the browser (API 1.2): `start` asks the server for the identity provider's
 * authorization URL of an address, and sets the `sso_state` cookie that binds the sign-in to this
 * browser; the page then navigates there. The provider sends the browser back to the server's callback,
 * which sets the auth cookies and redirects to `returnTo` (cookie mode: the session is then read with
 * `restore()`).
 *
 * @example
 * const { url } = await client.sso.start({ email, returnTo: `${location.origin}/` });
 * location.assign(url);
 */
export interface SsoClient {
  /** `POST /auth/sso/start`: `404 not_found` when no tenant signs this address in through SSO. */
  start(body: StartSsoRequest): Promise<{ url: string }>;
  /**
   * `POST /auth/sso/reauthenticate` (signed in): the authorization URL of a fresh login at the tenant's
   * provider for the same session (how an owner links its identity, and how an SSO user proves who it is
   * again); the page then navigates there. `404 not_found` when the tenant has no SSO connection.
   */
  reauthenticate(body?: ReauthenticateSsoRequest): Promise<{ url: string }>;
}

/** @internal The SSO methods over the client's `call`. */
export function ssoMethods(call: Call): SsoClient {
  return {
    start: async (body) => ({ url: (await call('startSso', { body })).url }),
    reauthenticate: async (body = {}) => ({ url: (await call('reauthenticateSso', { body })).url }),
  };
}
