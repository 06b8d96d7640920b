import { randomBytes } from 'node:crypto';
import { SAML } from '@node-saml/node-saml';
import type { SamlConnection, SamlServiceProvider } from './saml-types.js';

/** What {@link createAuthnRequest} sends. */
export interface AuthnRequestInput {
  connection: SamlConnection;
  sp: SamlServiceProvider;
  /** Given back by the identity provider with its response (the state's handle; not a secret). */
  relayState: string;
  /** Ask the identity provider to authenticate the user again, even with a session there (`ForceAuthn="true"`). */
  forceAuthn?: boolean;
}

/** The redirect to the identity provider, and the request ID to keep for its response's `InResponseTo`. */
export interface AuthnRequest {
  url: string;
  requestId: string;
}

/**
 * A fresh `AuthnRequest` for the HTTP-Redirect binding (deflated, base64, in the `ssoUrl`'s query) with
 * `Destination` = `ssoUrl`, `Issuer` = the service provider's entity ID, `AssertionConsumerServiceURL` =
 * the ACS (HTTP-POST), a fresh 160-bit `ID`, `ForceAuthn="true"` on request, and `RelayState`.
 * It asks for no particular NameID format and no authentication context, so that identity providers
 * configured for emailAddress or persistent identifiers, and users who sign in with a second factor or
 * without a password, are all served (a `RequestedAuthnContext` of password is a common cause of refusals).
 *
 * @example
 * const { url, requestId } = await createAuthnRequest({ connection, sp, relayState: state });
 */
export async function createAuthnRequest(input: AuthnRequestInput): Promise<AuthnRequest> {
  const requestId = `_${randomBytes(20).toString('hex')}`;
  const saml = new SAML({
    entryPoint: input.connection.ssoUrl,
    issuer: input.sp.entityId,
    callbackUrl: input.sp.acsUrl,
    // Required by node-saml's constructor; no response is checked with this instance.
    idpCert: [...input.connection.certificates],
    generateUniqueId: () => requestId,
    forceAuthn: input.forceAuthn === true,
    identifierFormat: null,
    disableRequestedAuthnContext: true,
    authnRequestBinding: 'HTTP-Redirect',
  });
  const url = await saml.getAuthorizeUrlAsync(input.relayState, undefined, {});
  return { url, requestId };
}
