import type { DomainResolver, IdentityProvider } from '../../ports/sso-ports.js';
import { configurationError } from '../../vocabulary/errors.js';

/** @internal The `sso` option once checked: the providers by `protocol`. */
export interface ResolvedSso {
  providers: ReadonlyMap<string, IdentityProvider>;
  domainResolver: DomainResolver;
  appUrl: string;
}

/** The verbs every {@link IdentityProvider} has. */
const PROVIDER_VERBS = ['checkInput', 'configure', 'describe', 'start', 'finish'] as const;
/** A protocol's name: what a connection stores and an owner sends (`oidc`, `saml`). */
const PROTOCOL = /^[a-z][a-z0-9-]{0,31}$/;

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

/** The registry of protocols: each provider checked, one per `protocol`. */
function registry(value: unknown): ReadonlyMap<string, IdentityProvider> {
  const option = 'sso.providers';
  if (!Array.isArray(value) || value.length === 0)
    throw fail(option, 'must be a non-empty list of IdentityProvider (one per protocol)');
  const providers = new Map<string, IdentityProvider>();
  for (const [index, provider] of (value as Partial<IdentityProvider>[]).entries()) {
    const where = `${option}[${index}]`;
    if (typeof provider?.protocol !== 'string' || !PROTOCOL.test(provider.protocol))
      throw fail(where, 'must have a protocol: lower-case letters, digits and dashes (such as oidc)');
    if (provider.returnsBy !== 'query' && provider.returnsBy !== 'form')
      throw fail(where, "must have returnsBy 'query' or 'form'");
    if (typeof provider.stateParameter !== 'string' || provider.stateParameter === '')
      throw fail(where, 'must have a stateParameter (the parameter that carries state back)');
    for (const verb of PROVIDER_VERBS) {
      if (typeof provider[verb] !== 'function')
        throw fail(where, `must be an IdentityProvider (an object with ${verb}())`);
    }
    if (providers.has(provider.protocol))
      throw fail(where, `registers the protocol ${provider.protocol} twice`);
    providers.set(provider.protocol, provider as IdentityProvider);
  }
  return providers;
}

/** @internal Checks the `sso` option (its ports and URLs); `undefined` when single sign-on is off. */
export function resolveSso(value: unknown): ResolvedSso | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null) throw fail('sso', 'must be an object');
  const sso = value as Record<string, unknown>;
  if ('identityProvider' in sso)
    throw fail(
      'sso.identityProvider',
      'is replaced by sso.providers (a list of IdentityProvider, one per protocol)',
    );
  const domainResolver = sso.domainResolver as Partial<DomainResolver> | undefined;
  if (typeof domainResolver?.resolveTxt !== 'function')
    throw fail('sso.domainResolver', 'must be a DomainResolver (an object with resolveTxt())');
  return {
    providers: registry(sso.providers),
    domainResolver: domainResolver as DomainResolver,
    appUrl: absoluteUrl('sso.appUrl', sso.appUrl),
  };
}
