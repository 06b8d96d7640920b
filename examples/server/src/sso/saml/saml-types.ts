/** A tenant's SAML connection: the identity provider it trusts. */
export interface SamlConnection {
  /** The identity provider's entity ID (the `Issuer` of its responses). */
  entityId: string;
  /** Its HTTP-Redirect `SingleSignOnService`, where `AuthnRequest`s go. */
  ssoUrl: string;
  /** The PEM certificates its responses may be signed with (several during a key rollover), already checked. */
  certificates: readonly string[];
}

/** The tenant's service provider: `spEntityId` and `acsUrl` of docs/http-api.md, "SAML 2.0 single sign-on per tenant". */
export interface SamlServiceProvider {
  /** `PUBLIC_URL + "/api/v1/auth/sso/saml/<tenantId>/metadata"`: the audience responses must name. */
  entityId: string;
  /** `PUBLIC_URL + "/api/v1/auth/sso/saml/<tenantId>/acs"`: the recipient and destination responses must name. */
  acsUrl: string;
}

/** Who the identity provider says signed in, read from the signed assertion only. */
export interface SamlIdentity {
  /** The assertion's `Issuer`: the connection's entity ID. */
  issuer: string;
  /** The `NameID`, whole (a comment inside it does not cut it). With `issuer`, the user's identity. */
  subject: string;
  /** The `NameID` when its format is emailAddress, else the first of the attributes `email`, `mail`, and the emailaddress claim URI. */
  email: string;
  /** The assertion's `ID`: a replay cache keeps it until `notOnOrAfter` plus the clock skew. */
  assertionId: string;
  /** The earliest `NotOnOrAfter` of the assertion's conditions and its bearer confirmation. */
  notOnOrAfter: Date;
  /** When the user authenticated at the identity provider (`AuthnStatement/@AuthnInstant`). */
  authnInstant: Date;
}

/** Why a response is refused, as docs/http-api.md maps it (`303 …/sso-error?code=<reason>`). */
export type SamlResponseFailure = 'invalid_response' | 'idp_error' | 'invalid_state';

/** The result of checking a posted `SAMLResponse`. Never a rejection: a refusal is a result. */
export type SamlResponseResult =
  | { ok: true; identity: SamlIdentity }
  | {
      ok: false;
      reason: SamlResponseFailure;
      /** In words, for the one `warn` log line of a refused sign-in; no secrets, no assertion content beyond names. */
      detail: string;
    };
