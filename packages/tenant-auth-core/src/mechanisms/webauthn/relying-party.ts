import { getPublicSuffix } from 'tldts';
import { configurationError } from '../../vocabulary/errors.js';

/**
 * The WebAuthn relying party passkeys are registered with and checked against (the `webauthn` option of
 * `createTenantAuth`).
 *
 * @example
 * const relyingParty: RelyingPartyOptions = {
 *   rpId: 'example.com',
 *   rpName: 'Example',
 *   origins: ['https://app.example.com'],
 * };
 */
export interface RelyingPartyOptions {
  /**
   * The RP ID: a host name (no scheme, no port) that equals, or is a registrable suffix of, the host of
   * every origin. Passkeys are bound to it: changing it orphans every registered passkey.
   */
  rpId: string;
  /** The name browsers show when a passkey is made. Default `'tenant-auth'`. */
  rpName?: string;
  /** The origins the web application runs on (`https://app.example.com`; `http://localhost:5173` in development). */
  origins: readonly string[];
}

/** @internal The relying party, checked. */
export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
}

const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * Whether `rpId` may be the RP ID of an origin whose host is `host`: the host itself, or a suffix of it at
 * a label boundary that is not a public suffix nor part of one (HTML's "is a registrable domain suffix of
 * or is equal to", with the Public Suffix List's private section too: `github.io` is no RP ID, else one
 * site's passkeys would be offered to every other site under it; browsers refuse such an RP ID anyway).
 *
 * @example
 * isRpIdOf('example.com', 'app.example.com'); // true
 * isRpIdOf('example.com', 'badexample.com'); // false
 * isRpIdOf('co.uk', 'app.example.co.uk'); // false: a public suffix
 */
export function isRpIdOf(rpId: string, host: string): boolean {
  if (host === rpId) return true;
  if (!host.endsWith(`.${rpId}`)) return false;
  // Development: `app.localhost` under `localhost` (no public suffix list has it; nothing is shared there).
  if (rpId === 'localhost') return true;
  const publicSuffix = getPublicSuffix(host, { allowPrivateDomains: true });
  return publicSuffix === null || (publicSuffix !== rpId && !publicSuffix.endsWith(`.${rpId}`));
}

/**
 * @internal Checks a relying party; a problem is an `invalid_configuration` naming `names.rpId` or
 * `names.origins` (option names, or the environment variables a server reads them from).
 */
export function resolveRelyingParty(
  value: RelyingPartyOptions,
  names: { factory: string; rpId: string; rpName: string; origins: string } = {
    factory: 'createTenantAuth',
    rpId: 'webauthn.rpId',
    rpName: 'webauthn.rpName',
    origins: 'webauthn.origins',
  },
): RelyingParty {
  const fail = (option: string, problem: string) => configurationError(names.factory, option, problem);
  if (typeof value !== 'object' || value === null) throw fail('webauthn', 'must be an object');
  const { rpId, rpName = 'tenant-auth', origins } = value;
  if (typeof rpId !== 'string' || !HOST_NAME.test(rpId) || /^[0-9.]+$/.test(rpId))
    throw fail(names.rpId, 'must be a lower-case host name without scheme or port (e.g. example.com)');
  if (typeof rpName !== 'string' || rpName.trim() === '')
    throw fail(names.rpName, 'must be a non-empty string');
  if (!Array.isArray(origins) || origins.length === 0)
    throw fail(names.origins, 'must list at least one origin (https://app.example.com)');
  const checked = origins.map((origin: unknown) => {
    let url: URL;
    try {
      url = new URL(String(origin));
    } catch {
      throw fail(names.origins, `has an origin that is not a URL: ${String(origin)}`);
    }
    if (url.origin !== origin)
      throw fail(names.origins, `must list origins only (scheme://host[:port], no path): ${String(origin)}`);
    const local = url.hostname === 'localhost' || url.hostname.endsWith('.localhost');
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local))
      throw fail(names.origins, `must use https (http only on localhost): ${url.origin}`);
    if (!isRpIdOf(rpId, url.hostname))
      throw fail(
        names.rpId,
        `"${rpId}" is not the host of the origin ${url.origin}, nor a registrable suffix of it`,
      );
    return url.origin;
  });
  return { id: rpId, name: rpName, origins: checked };
}
