import { configurationError } from '../errors.js';
import type { SsoOptions } from './sso-types.js';

const fail = (option: string, problem: string) => configurationError('createTenantAuth', option, problem);

function absoluteUrl(option: string, value: unknown): string {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw fail(option, `must be an absolute http(s) URL (got ${String(value)})`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash)
    throw fail(option, `must be an http(s) URL without query or fragment (got ${String(value)})`);
  return url.href.replace(/\/+$/, '');
}

/** @internal Checks the `sso` option (its ports and URLs); `undefined` when single sign-on is off. */
export function resolveSso(value: unknown): SsoOptions | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null) throw fail('sso', 'must be an object');
  const sso = value as Partial<SsoOptions>;
  for (const verb of ['discover', 'authorizationUrl', 'exchange'] as const) {
    if (typeof sso.identityProvider?.[verb] !== 'function')
      throw fail('sso.identityProvider', `must be an IdentityProvider (an object with ${verb}())`);
  }
  if (typeof sso.domainResolver?.resolveTxt !== 'function')
    throw fail('sso.domainResolver', 'must be a DomainResolver (an object with resolveTxt())');
  return {
    identityProvider: sso.identityProvider as SsoOptions['identityProvider'],
    domainResolver: sso.domainResolver,
    redirectUri: absoluteUrl('sso.redirectUri', sso.redirectUri),
    appUrl: absoluteUrl('sso.appUrl', sso.appUrl),
  };
}
