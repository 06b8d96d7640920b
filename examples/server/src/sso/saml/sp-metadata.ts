import type { SamlServiceProvider } from './saml-types.js';

/** The media type of `GET /auth/sso/saml/:tenantId/metadata`. */
export const SAML_METADATA_MEDIA_TYPE = 'application/samlmetadata+xml';

const xmlAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * A tenant's service provider metadata (docs/http-api.md, "SAML 2.0 single sign-on per tenant"): its
 * entity ID, one assertion consumer service with the HTTP-POST binding, `WantAssertionsSigned="true"`,
 * unsigned `AuthnRequest`s, and the NameID formats emailAddress and persistent. Written here rather than
 * by node-saml's generator, which states a single NameID format.
 *
 * @example
 * ctx.type = SAML_METADATA_MEDIA_TYPE;
 * ctx.body = serviceProviderMetadata({ entityId, acsUrl });
 */
export function serviceProviderMetadata(sp: SamlServiceProvider): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${xmlAttribute(sp.entityId)}">`,
    '  <md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" AuthnRequestsSigned="false" WantAssertionsSigned="true">',
    '    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>',
    '    <md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>',
    `    <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${xmlAttribute(sp.acsUrl)}" index="0" isDefault="true"/>`,
    '  </md:SPSSODescriptor>',
    '</md:EntityDescriptor>',
    '',
  ].join('\n');
}
