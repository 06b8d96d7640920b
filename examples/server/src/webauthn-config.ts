import { isIP } from 'node:net';

/**
 * The passkey relying party of the server (`WEBAUTHN_RP_ID`, `WEBAUTHN_RP_NAME`, `WEBAUTHN_ORIGINS`),
 * before tenant-auth checks it at start-up (an RP ID that is not the host of every origin, nor a
 * registrable suffix of it, is refused naming `WEBAUTHN_RP_ID`).
 *
 * @example
 * const rp: WebAuthnConfig = { rpId: 'example.com', rpName: 'Example', origins: ['https://app.example.com'] };
 */
export interface WebAuthnConfig {
  rpId: string;
  rpName: string;
  origins: string[];
}

/**
 * The relying party from the environment: each variable as set, else from `appUrl` (its host name, its
 * origin) and `tenant-auth`. `undefined` (passkeys off) only when none is set and `appUrl`'s host is an IP
 * address, which cannot be an RP ID (development on a LAN address: set the variables, or use `localhost`);
 * {@link passkeysUnavailableReason} says when else the server leaves passkeys off.
 *
 * @example
 * webauthnConfigOf({}, 'http://localhost:5173'); // { rpId: 'localhost', rpName: 'tenant-auth', origins: ['http://localhost:5173'] }
 */
export function webauthnConfigOf(
  env: { WEBAUTHN_RP_ID?: string; WEBAUTHN_RP_NAME?: string; WEBAUTHN_ORIGINS?: string },
  appUrl: string,
): WebAuthnConfig | undefined {
  const app = new URL(appUrl);
  const set = [env.WEBAUTHN_RP_ID, env.WEBAUTHN_RP_NAME, env.WEBAUTHN_ORIGINS].some((v) => v !== undefined);
  if (!set && isIP(app.hostname.replace(/^\[|\]$/g, '')) !== 0) return undefined;
  return {
    rpId: env.WEBAUTHN_RP_ID ?? app.hostname,
    rpName: env.WEBAUTHN_RP_NAME ?? 'tenant-auth',
    origins: env.WEBAUTHN_ORIGINS?.split(',')
      .map((o) => o.trim())
      .filter((o) => o !== '') ?? [app.origin],
  };
}

/**
 * Why passkeys are off, when no `WEBAUTHN_*` variable is set and the relying party derived from `appUrl`
 * would be refused: its host is an IP address (which cannot be an RP ID), or, in development, it is
 * `http://` on a host other than `localhost` (browsers allow WebAuthn over http on localhost only). A
 * development server then starts without passkeys instead of refusing to start; in production the
 * derived relying party is kept, so a wrong one stops the server naming the variable. `undefined`: passkeys
 * are on (or the variables ask for them, and tenant-auth checks them).
 *
 * @example
 * passkeysUnavailableReason({}, 'http://dev.example.test:5173', false); // 'APP_URL is http:// on a host other than localhost…'
 */
export function passkeysUnavailableReason(
  env: { WEBAUTHN_RP_ID?: string; WEBAUTHN_RP_NAME?: string; WEBAUTHN_ORIGINS?: string },
  appUrl: string,
  production: boolean,
): string | undefined {
  if ([env.WEBAUTHN_RP_ID, env.WEBAUTHN_RP_NAME, env.WEBAUTHN_ORIGINS].some((v) => v !== undefined))
    return undefined;
  const app = new URL(appUrl);
  if (isIP(app.hostname.replace(/^\[|\]$/g, '')) !== 0)
    return "APP_URL's host is an IP address, which cannot be a passkey relying party: passkeys are unavailable (set WEBAUTHN_RP_ID and WEBAUTHN_ORIGINS, or use localhost)";
  const local = app.hostname === 'localhost' || app.hostname.endsWith('.localhost');
  if (!production && app.protocol === 'http:' && !local)
    return 'APP_URL is http:// on a host other than localhost, which passkeys refuse (WEBAUTHN_ORIGINS would be it): passkeys are unavailable in this development server (use https, or localhost, or set WEBAUTHN_ORIGINS)';
  return undefined;
}
