import { createRequire } from 'node:module';

/*
 * Reading SAML XML: one strict parse with @xmldom/xmldom (the parser xml-crypto and node-saml verify
 * signatures with, at the same version, so all three see the same tree), and namespace-exact lookups.
 */

/** The part of xmldom's DOM read here. */
export interface XmlNode {
  nodeType: number;
  parentNode: XmlNode | null;
  firstChild: XmlNode | null;
  nextSibling: XmlNode | null;
  textContent: string | null;
}

/** An attribute of an {@link XmlElement}. */
export interface XmlAttr {
  name: string;
  localName: string | null;
  value: string;
}

/** An element of xmldom's DOM. */
export interface XmlElement extends XmlNode {
  namespaceURI: string | null;
  localName: string | null;
  tagName: string;
  attributes: { length: number; item(index: number): XmlAttr | null };
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
}

interface XmlDomParser {
  parseFromString(
    xml: string,
    mimeType: string,
  ): { documentElement: XmlElement | null; doctype: unknown } | undefined;
}

// Loaded without an import statement: xmldom's type declarations pull in TypeScript's "dom" library, which
// would retype fetch, Headers and Response for the whole workspace. The types above are what is used.
const { DOMParser } = createRequire(import.meta.url)('@xmldom/xmldom') as {
  DOMParser: new (options: {
    locator: object;
    errorHandler: Record<'warning' | 'error' | 'fatalError', (message: string) => void>;
  }) => XmlDomParser;
};

export const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';
export const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
export const DS = 'http://www.w3.org/2000/09/xmldsig#';
export const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';

/** The result of {@link parseXml}. */
export type ParsedXml = { ok: true; root: XmlElement } | { ok: false; detail: string };

/**
 * Parses `xml` or says why not: a document type declaration (with or without entities) is refused before
 * any parsing, and so is anything the parser warns about (xmldom recovers from malformed input; a
 * response it had to repair is not the one that was signed).
 */
export function parseXml(xml: string): ParsedXml {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml))
    return { ok: false, detail: 'the XML has a document type declaration' };
  const problems: string[] = [];
  const record = (message: string) => problems.push(message.split('\n')[0] ?? message);
  const doc = new DOMParser({
    locator: {},
    errorHandler: { warning: record, error: record, fatalError: record },
  }).parseFromString(xml, 'text/xml');
  if (problems.length > 0) return { ok: false, detail: `the XML is not well-formed (${problems[0]})` };
  if (!doc?.documentElement) return { ok: false, detail: 'the XML has no root element' };
  if (doc.doctype) return { ok: false, detail: 'the XML has a document type declaration' };
  return { ok: true, root: doc.documentElement };
}

/** Whether `node` is the element `{ns}localName`. */
export const is = (node: XmlNode | null | undefined, ns: string, localName: string): node is XmlElement =>
  node?.nodeType === 1 &&
  (node as XmlElement).namespaceURI === ns &&
  (node as XmlElement).localName === localName;

/** The element children of `parent` named `{ns}localName`, in document order. */
export function childrenNamed(parent: XmlElement, ns: string, localName: string): XmlElement[] {
  const found: XmlElement[] = [];
  for (let n = parent.firstChild; n; n = n.nextSibling) if (is(n, ns, localName)) found.push(n);
  return found;
}

/** Every element child of `parent`. */
export function elementChildren(parent: XmlElement): XmlElement[] {
  const found: XmlElement[] = [];
  for (let n = parent.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) found.push(n as XmlElement);
  return found;
}

/** Every element of the document under `root` (itself included) whose local name is `localName`, in any namespace. */
export function elementsNamedAnywhere(root: XmlElement, localName: string): XmlElement[] {
  const found: XmlElement[] = [];
  const visit = (el: XmlElement) => {
    if (el.localName === localName) found.push(el);
    for (const child of elementChildren(el)) visit(child);
  };
  visit(root);
  return found;
}

/** Every element under `root` (itself included), depth first. */
export function allElements(root: XmlElement): XmlElement[] {
  const found: XmlElement[] = [];
  const visit = (el: XmlElement) => {
    found.push(el);
    for (const child of elementChildren(el)) visit(child);
  };
  visit(root);
  return found;
}

/**
 * The text of an element: all of its text and CDATA, comments left out, never cut at a comment
 * (`a<!---->b` is `ab`, as the signature's canonical form sees it), with surrounding white space trimmed.
 */
export const textOf = (el: XmlElement): string =>
  (el.textContent ?? '').replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');

/** An attribute without a namespace, or `null` when absent. */
export const attribute = (el: XmlElement, name: string): string | null =>
  el.hasAttribute(name) ? el.getAttribute(name) : null;
