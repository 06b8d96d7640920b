import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { inflateRawSync } from 'node:zlib';
import { createFakeIdp, type FakeIdp, type FakeIdpUser } from './fake-idp.js';
import { SAML, SAMLP, xmlEscape } from './saml-builder.js';

// Loaded without an import statement: xmldom's type declarations pull in TypeScript's "dom" library for
// the whole workspace. The little read here is typed below.
interface Element {
  namespaceURI: string | null;
  localName: string | null;
  getAttribute(name: string): string | null;
  getElementsByTagNameNS(ns: string, localName: string): { length: number; item(i: number): Element | null };
  textContent: string | null;
}
const { DOMParser } = createRequire(import.meta.url)('@xmldom/xmldom') as {
  DOMParser: new () => { parseFromString(xml: string, type: string): { documentElement: Element | null } };
};

/** An `AuthnRequest` the test identity provider received. */
export interface ReceivedAuthnRequest {
  id: string;
  issuer: string;
  destination: string | null;
  acsUrl: string | null;
  protocolBinding: string | null;
  forceAuthn: boolean;
  relayState: string | null;
  /** The request's XML, inflated. */
  xml: string;
}

/** A SAML identity provider on a real port, for browser and HTTP round trips. */
export interface TestIdpServer extends FakeIdp {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Who signs in next (the login page signs whoever this is in, without asking). */
  user: FakeIdpUser;
  /** The requests received, oldest first. */
  requests: ReceivedAuthnRequest[];
  /** Lets a service provider in: its entity ID and the one ACS the provider posts to. */
  register(sp: { entityId: string; acsUrl: string }): void;
  close(): Promise<void>;
}

const page = (status: number, body: string) => ({ status, body });

/**
 * Starts a test identity provider on loopback: `GET /metadata` answers its metadata; `GET /sso` takes an
 * `AuthnRequest` (HTTP-Redirect binding: deflated, base64, with `RelayState`) from a registered service
 * provider and answers a login page that signs `user` in and posts a signed response to that provider's
 * registered ACS at once (a form the page submits itself, as Entra ID's and Okta's pages do). A request
 * from an unregistered issuer, or naming another ACS, answers 400 like a real provider.
 *
 * @example
 * const idp = await startTestIdpServer({ user: { nameId: 'alice@example.com' } });
 * idp.register({ entityId: spEntityId, acsUrl });
 */
export async function startTestIdpServer(options: { user: FakeIdpUser }): Promise<TestIdpServer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const idp = createFakeIdp({ baseUrl: url });
  const sps = new Map<string, string>();
  const state: TestIdpServer = {
    ...idp,
    url,
    user: options.user,
    requests: [],
    register: (sp) => void sps.set(sp.entityId, sp.acsUrl),
    close: () =>
      new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };

  function signIn(query: URLSearchParams) {
    const encoded = query.get('SAMLRequest');
    if (!encoded) return page(400, 'no SAMLRequest');
    let xml: string;
    try {
      xml = inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
    } catch {
      return page(400, 'the SAMLRequest is not deflated');
    }
    const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
    if (!root || root.namespaceURI !== SAMLP || root.localName !== 'AuthnRequest')
      return page(400, 'not an AuthnRequest');
    const issuer = root.getElementsByTagNameNS(SAML, 'Issuer').item(0)?.textContent ?? '';
    const request: ReceivedAuthnRequest = {
      id: root.getAttribute('ID') ?? '',
      issuer,
      destination: root.getAttribute('Destination') || null,
      acsUrl: root.getAttribute('AssertionConsumerServiceURL') || null,
      protocolBinding: root.getAttribute('ProtocolBinding') || null,
      forceAuthn: root.getAttribute('ForceAuthn') === 'true',
      relayState: query.get('RelayState'),
      xml,
    };
    state.requests.push(request);
    const acsUrl = sps.get(issuer);
    if (!acsUrl) return page(400, 'unknown service provider');
    if (request.acsUrl !== null && request.acsUrl !== acsUrl)
      return page(400, 'the ACS is not the registered one');
    const samlResponse = idp.response({
      sp: { entityId: issuer, acsUrl },
      inResponseTo: request.id,
      user: state.user,
    });
    const relayState =
      request.relayState === null
        ? ''
        : `<input type="hidden" name="RelayState" value="${xmlEscape(request.relayState)}">`;
    return page(
      200,
      '<!doctype html><html><head><title>Test IdP</title></head><body onload="document.forms[0].submit()">' +
        `<form method="post" action="${xmlEscape(acsUrl)}">` +
        `<input type="hidden" name="SAMLResponse" value="${samlResponse}">${relayState}` +
        '<noscript><button type="submit">Continue</button></noscript></form></body></html>',
    );
  }

  server.on('request', (req, res) => {
    const u = new URL(req.url ?? '/', url);
    const answer =
      req.method === 'GET' && u.pathname === '/metadata'
        ? { status: 200, body: idp.metadataXml(), type: 'application/samlmetadata+xml' }
        : req.method === 'GET' && u.pathname === '/sso'
          ? { ...signIn(u.searchParams), type: 'text/html; charset=utf-8' }
          : { status: 404, body: 'not found', type: 'text/plain' };
    res.writeHead(answer.status, { 'content-type': answer.type, 'cache-control': 'no-store' });
    res.end(answer.body);
  });
  return state;
}
