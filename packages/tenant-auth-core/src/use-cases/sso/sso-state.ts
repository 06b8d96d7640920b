import type { DataSealer } from '../../mechanisms/sealing/data-key.js';
import type { Services } from '../../mechanisms/services.js';

/** @internal How long a started sign-in may take (the `sso_state` cookie's `Max-Age`). */
export const SSO_STATE_TTL_SECONDS = 600;
const STATE_PURPOSE = 'sso-state';

/**
 * @internal What the `sso_state` cookie holds, sealed, whatever the protocol: the `state` the provider
 * must send back, the tenant and protocol of the connection it started with, where to land, what the
 * provider kept (OpenID Connect's nonce and PKCE verifier), and when it expires.
 */
export interface SsoState {
  tenantId: string;
  protocol: string;
  state: string;
  returnTo: string | null;
  kept: Readonly<Record<string, string>>;
  expiresAt: number;
  /**
   * Set when the state starts a re-authentication (`POST /auth/sso/reauthenticate`): the session it
   * rotates and its user. Absent for a sign-in. `mayLink`: the session was recent when it started
   * (docs/http-api.md: an owner links from a recent session), so the callback may link a user who has no
   * identity at the issuer yet.
   */
  reauthentication?: { sessionId: string; userId: string; mayLink?: boolean };
}

/** @internal A random `state` for the provider to send back. */
export const randomState = (services: Pick<Services, 'random'>) =>
  Buffer.from(services.random(32)).toString('base64url');

/** @internal `returnTo` when it is a URL of the application's origin; otherwise `null`. */
export function sameOrigin(value: unknown, appUrl: string): string | null {
  if (typeof value !== 'string' || value.length > 2048) return null;
  try {
    const url = new URL(value, `${appUrl}/`);
    return url.origin === new URL(appUrl).origin ? url.href : null;
  } catch {
    return null;
  }
}

/** @internal Seals the state for the `sso_state` cookie. */
export function sealState(sealer: DataSealer, state: SsoState): string {
  return sealer.seal(Buffer.from(JSON.stringify(state), 'utf8'), STATE_PURPOSE, '');
}

const isText = (value: unknown): value is string => typeof value === 'string';

/** The sealed JSON, if it has the shape of a state (a value sealed by another version fails closed). */
function shaped(value: unknown): SsoState | null {
  const s = value as Partial<SsoState> | null;
  if (typeof s !== 'object' || s === null) return null;
  if (!isText(s.tenantId) || !isText(s.protocol) || !isText(s.state) || typeof s.expiresAt !== 'number')
    return null;
  if (s.returnTo !== null && !isText(s.returnTo)) return null;
  if (typeof s.kept !== 'object' || s.kept === null || !Object.values(s.kept).every(isText)) return null;
  const again = s.reauthentication;
  if (
    again !== undefined &&
    (typeof again !== 'object' ||
      again === null ||
      !isText(again.sessionId) ||
      !isText(again.userId) ||
      (again.mayLink !== undefined && typeof again.mayLink !== 'boolean'))
  )
    return null;
  return s as SsoState;
}

/** @internal The state the cookie holds, if it opens and is unexpired; `null` otherwise. */
export function openState(sealer: DataSealer, cookie: string | undefined, now: number): SsoState | null {
  if (!isText(cookie) || cookie === '') return null;
  try {
    const state = shaped(JSON.parse(sealer.open(cookie, STATE_PURPOSE, '').toString('utf8')));
    return state && state.expiresAt > now ? state : null;
  } catch {
    return null;
  }
}
