import { createHash, X509Certificate } from 'node:crypto';
import type { FieldError, IdentityProvider, IdentityProviderConnection } from 'tenant-auth-core';
import { createAuthnRequest } from './authn-request.js';
import { checkCertificates } from './certificates.js';
import { MAX_METADATA_BYTES, parseIdpMetadata } from './idp-metadata.js';
import { CLOCK_SKEW_MS, validateSamlResponse } from './saml-response.js';
import type { SamlConnection, SamlServiceProvider } from './saml-types.js';
import { SAML_METADATA_MEDIA_TYPE, serviceProviderMetadata } from './sp-metadata.js';

/** The most certificates a connection keeps (a rollover needs two or three). */
const MAX_CERTIFICATES = 10;
/** The longest PEM certificate taken (an RSA-8192 certificate with long names is under 4 KiB). */
const MAX_CERTIFICATE_CHARS = 16 * 1024;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Options of {@link createSamlProvider}. */
export interface SamlProviderOptions {
  /** `PUBLIC_URL`: each tenant's service provider is `<publicUrl>/api/v1/auth/sso/saml/<tenantId>/…`. */
  publicUrl: string;
  /** `OUTBOUND_ALLOW_LOOPBACK`: an `http://` SSO URL on loopback is allowed (development and tests). */
  allowLoopback: boolean;
  /** The clock; default `new Date()`. */
  now?: () => Date;
}

const field = (name: string, code: FieldError['code'], message: string): FieldError => ({
  field: name,
  code,
  message,
});

/** Why `value` is not an SSO URL the browser may be sent to; `null` when it is. */
function ssoUrlProblem(value: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'The SSO URL is not an absolute URL.';
  }
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && allowLoopback && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'The SSO URL must be https (http only on loopback, when the server allows it).';
}

/** The stored certificates of a connection (PEM, checked when configured). */
const certificatesOf = (connection: Pick<IdentityProviderConnection, 'settings'>): string[] => {
  const value = connection.settings.certificates;
  return Array.isArray(value) ? value.filter((c): c is string => typeof c === 'string') : [];
};

/**
 * The SAML 2.0 provider of the reference server (docs/http-api.md, "SAML 2.0 single sign-on per
 * tenant") on `@node-saml/node-saml` 5.1: a connection by the IdP's metadata or by fields, its
 * certificates checked (several for a key rollover); `start` an HTTP-Redirect `AuthnRequest` (with
 * `ForceAuthn` for a re-authentication) whose `ID` core keeps sealed in the `sso_state` cookie;
 * `finish` the checks of `validateSamlResponse` on the posted `SAMLResponse`, the identity
 * `(entity ID, NameID)`, and the assertion `ID` for core's replay cache until its `NotOnOrAfter`.
 *
 * @example
 * const saml = createSamlProvider({ publicUrl: 'https://auth.example.com', allowLoopback: false });
 */
export function createSamlProvider(options: SamlProviderOptions): IdentityProvider {
  const now = options.now ?? (() => new Date());
  const serviceProvider = (tenantId: string): SamlServiceProvider => {
    const base = `${options.publicUrl}/api/v1/auth/sso/saml/${encodeURIComponent(tenantId)}`;
    return { entityId: `${base}/metadata`, acsUrl: `${base}/acs` };
  };
  const samlConnection = (connection: Omit<IdentityProviderConnection, 'secret'>): SamlConnection => ({
    entityId: connection.issuer,
    ssoUrl: String(connection.settings.ssoUrl ?? ''),
    certificates: certificatesOf(connection),
  });

  function checkInput(input: Readonly<Record<string, unknown>>): FieldError[] {
    const errors: FieldError[] = [];
    for (const [name, value] of Object.entries(input)) {
      if (value !== undefined && !['metadataXml', 'entityId', 'ssoUrl', 'certificates'].includes(name))
        errors.push(field(name, 'invalid_value', `${name} is not a field of a SAML connection.`));
    }
    const { metadataXml, entityId, ssoUrl, certificates } = input;
    if (metadataXml !== undefined) {
      if (typeof metadataXml !== 'string')
        errors.push(field('metadataXml', 'invalid_type', 'metadataXml must be a string.'));
      else if (Buffer.byteLength(metadataXml, 'utf8') > MAX_METADATA_BYTES)
        errors.push(field('metadataXml', 'invalid_metadata', 'The metadata is too large.'));
      for (const [name, value] of Object.entries({ entityId, ssoUrl, certificates }))
        if (value !== undefined)
          errors.push(
            field(name, 'invalid_value', `${name} is read from metadataXml; send one or the other.`),
          );
      return errors;
    }
    if (typeof entityId !== 'string' || entityId === '' || entityId.length > 1024)
      errors.push(
        field(
          'entityId',
          entityId === undefined ? 'required' : 'invalid_value',
          'The IdP entity ID is required.',
        ),
      );
    if (typeof ssoUrl !== 'string' || ssoUrl.length > 2048)
      errors.push(
        field('ssoUrl', ssoUrl === undefined ? 'required' : 'invalid_url', 'The SSO URL is required.'),
      );
    else {
      const problem = ssoUrlProblem(ssoUrl, options.allowLoopback);
      if (problem) errors.push(field('ssoUrl', 'invalid_url', problem));
    }
    if (
      !Array.isArray(certificates) ||
      certificates.length === 0 ||
      certificates.length > MAX_CERTIFICATES ||
      !certificates.every((c) => typeof c === 'string' && c.length <= MAX_CERTIFICATE_CHARS)
    )
      errors.push(
        field(
          'certificates',
          certificates === undefined ? 'required' : 'invalid_certificate',
          `One to ${MAX_CERTIFICATES} PEM certificates are required.`,
        ),
      );
    return errors;
  }

  return {
    protocol: 'saml',
    returnsBy: 'form',
    stateParameter: 'RelayState',
    checkInput,
    async configure(input) {
      const errors = checkInput(input);
      if (errors.length > 0) return { ok: false, errors };
      let entityId: string;
      let ssoUrl: string;
      let pems: readonly string[];
      if (typeof input.metadataXml === 'string') {
        const parsed = parseIdpMetadata(input.metadataXml);
        if (!parsed.ok)
          return {
            ok: false,
            errors: [field('metadataXml', 'invalid_metadata', 'The metadata is not usable IdP metadata.')],
            detail: parsed.detail,
          };
        const problem = ssoUrlProblem(parsed.metadata.ssoUrl, options.allowLoopback);
        if (problem)
          return {
            ok: false,
            errors: [field('metadataXml', 'invalid_metadata', problem)],
            detail: `the metadata's SingleSignOnService: ${problem}`,
          };
        ({ entityId, ssoUrl } = parsed.metadata);
        pems = parsed.metadata.certificates;
      } else {
        entityId = input.entityId as string;
        ssoUrl = input.ssoUrl as string;
        pems = input.certificates as string[];
      }
      const checked = checkCertificates(pems, now());
      if (!checked.ok)
        return {
          ok: false,
          errors: [
            field(
              typeof input.metadataXml === 'string' ? 'metadataXml' : 'certificates',
              typeof input.metadataXml === 'string' ? 'invalid_metadata' : 'invalid_certificate',
              `A certificate is refused: ${checked.detail}.`,
            ),
          ],
          detail: checked.detail,
        };
      return {
        ok: true,
        issuer: entityId,
        settings: { ssoUrl, certificates: checked.certificates.map((c) => c.pem) },
        secret: null,
      };
    },
    describe(connection) {
      const sp = serviceProvider(connection.tenantId);
      return {
        entityId: connection.issuer,
        ssoUrl: String(connection.settings.ssoUrl ?? ''),
        certificates: certificatesOf(connection).flatMap((pem) => {
          try {
            const x509 = new X509Certificate(pem);
            const fingerprintSha256 = createHash('sha256').update(x509.raw).digest('hex');
            return [{ fingerprintSha256, notAfter: x509.validToDate.toISOString() }];
          } catch {
            return [];
          }
        }),
        spEntityId: sp.entityId,
        acsUrl: sp.acsUrl,
        metadataUrl: sp.entityId,
      };
    },
    document: (connection) => ({
      mediaType: SAML_METADATA_MEDIA_TYPE,
      body: serviceProviderMetadata(serviceProvider(connection.tenantId)),
    }),
    async start(connection, request) {
      const { url, requestId } = await createAuthnRequest({
        connection: samlConnection(connection),
        sp: serviceProvider(connection.tenantId),
        relayState: request.state,
        forceAuthn: request.forceAuthentication,
      });
      return { url, kept: { requestId } };
    },
    async finish(connection, response) {
      const samlResponse = response.params.SAMLResponse;
      const requestId = response.kept.requestId;
      if (typeof samlResponse !== 'string' || samlResponse === '')
        return { ok: false, reason: 'invalid_response', detail: 'the post carries no SAMLResponse (once)' };
      if (typeof requestId !== 'string' || requestId === '')
        return { ok: false, reason: 'invalid_state', detail: 'the sso_state keeps no AuthnRequest ID' };
      const result = await validateSamlResponse({
        samlResponse,
        connection: samlConnection(connection),
        sp: serviceProvider(connection.tenantId),
        requestId,
        now: now(),
      });
      if (!result.ok) return { ok: false, reason: result.reason, detail: result.detail };
      const { identity } = result;
      return {
        ok: true,
        identity: {
          issuer: identity.issuer,
          subject: identity.subject,
          email: identity.email,
          // The tenant's own IdP asserting an address core then requires in a verified domain of the
          // tenant: verified (docs/http-api.md; SAML carries no email_verified).
          emailVerified: true,
          amr: [],
          authTime: identity.authnInstant,
          oneTimeId: {
            id: identity.assertionId,
            expiresAt: new Date(identity.notOnOrAfter.getTime() + CLOCK_SKEW_MS),
          },
        },
      };
    },
  };
}
