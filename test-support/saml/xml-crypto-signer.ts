import { SignedXml } from 'xml-crypto';
import { EXC_C14N } from './saml-builder.js';
import type { SamlSigner } from './saml-corpus.js';

const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';

/**
 * The corpus's signer on xml-crypto (a devDependency: only tests sign): an enveloped XML signature with
 * exclusive canonicalization over the element whose `ID` is given, the way identity providers sign, with
 * the certificate in `KeyInfo` (which a verifier must ignore in favour of the connection's certificates).
 *
 * @example
 * const world = createSamlCorpusWorld({ signer: xmlCryptoSigner });
 */
export const xmlCryptoSigner: SamlSigner = {
  sign({ xml, id, privateKey, certificate, signatureAlgorithm, digestAlgorithm, canonicalizationAlgorithm }) {
    const c14n = canonicalizationAlgorithm ?? EXC_C14N;
    const sig = new SignedXml({
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      publicCert: certificate,
      signatureAlgorithm,
      canonicalizationAlgorithm: c14n,
    });
    sig.addReference({ xpath: `//*[@ID='${id}']`, transforms: [ENVELOPED, c14n], digestAlgorithm });
    sig.computeSignature(xml, { prefix: 'ds' });
    return sig.getSignatureXml();
  },
};
