import type { DataSealer } from '../../mechanisms/sealing/data-key.js';
import { SSO_SECRET_PURPOSE } from '../../mechanisms/sealing/stored-values.js';
import type { IdentityProvider, IdentityProviderConnection } from '../../ports/sso-ports.js';
import type { SsoConnectionRecord } from '../../ports/sso-store.js';
import type { ResolvedSso } from './sso-options.js';

/** @internal The protocol of a connection whose input names none (`docs/http-api.md`: `protocol?: "oidc"`). */
export const DEFAULT_PROTOCOL = 'oidc';

/** @internal The registered provider of a protocol; `undefined` when the server offers none. */
export function providerFor(sso: ResolvedSso | undefined, protocol: string): IdentityProvider | undefined {
  return sso?.providers.get(protocol);
}

/**
 * @internal The protocol's fields of a connection, as its provider describes them; the `issuer` alone when
 * the server offers that protocol no longer (or single sign-on is off).
 */
export function describeConnection(
  sso: ResolvedSso | undefined,
  record: SsoConnectionRecord,
): Record<string, unknown> {
  const provider = providerFor(sso, record.protocol);
  const { tenantId, protocol, issuer, settings } = record;
  return provider ? provider.describe({ tenantId, protocol, issuer, settings }) : { issuer };
}

/** @internal The connection as its provider gets it for one call: the secret opened. */
export function openConnection(sealer: DataSealer, record: SsoConnectionRecord): IdentityProviderConnection {
  const { tenantId, protocol, issuer, settings, sealedSecret } = record;
  const secret =
    sealedSecret === null ? null : sealer.open(sealedSecret, SSO_SECRET_PURPOSE, tenantId).toString('utf8');
  return { tenantId, protocol, issuer, settings, secret };
}
