import { type ScimType, scimBadRequest } from './scim-error.js';
import { asciiLower, sameName } from './scim-values.js';

/**
 * Attribute paths and `eq` comparisons (RFC 7644 3.4.2.2 and 3.5.2), the part of SCIM's filter grammar
 * this server speaks: the `filter` query parameter and a PATCH operation's `path` are both read here.
 *
 * A scanner over the text, one character at a time, with no regular expression that can backtrack: a
 * hostile filter costs time in proportion to its length (scim2-parse-filter's tokenizer takes seconds
 * on an unterminated string of forty newlines).
 */

/** A comparison's value (RFC 7644 `compValue`): a JSON string, `true`, `false`, `null` or a number. */
export type ScimValue = string | boolean | number | null;

/** `type eq "work"` inside `emails[...]`: the only value filter a path may carry. */
export interface ScimValueFilter {
  /** The sub-attribute compared, as written (names are case-insensitive). */
  attribute: string;
  value: ScimValue;
}

/** `name.givenName`, `emails[type eq "work"].value`, `urn:…:User:userName`: an attribute path. */
export interface ScimAttributePath {
  /** The schema URN written before the attribute, or null. */
  schema: string | null;
  /** The attribute, as written (names are case-insensitive). */
  attribute: string;
  /** The value filter in brackets after the attribute, or null. */
  filter: ScimValueFilter | null;
  /** The sub-attribute after a dot, or null. */
  subAttribute: string | null;
}

/** `attrPath eq compValue`: the one kind of filter this server answers. */
export interface ScimComparison {
  path: ScimAttributePath;
  value: ScimValue;
}

/** RFC 7643 2.1 `ATTRNAME` (ASCII letters, digits, `-`, `_`), and `$ref`. */
const ATTRIBUTE_NAME = /^(?:[A-Za-z][A-Za-z0-9_-]*|\$ref)$/;
/** RFC 7159 numbers. */
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
/** Where a name or a bare word ends. */
const WORD_ENDS = ' []"';

class Scanner {
  position = 0;

  constructor(
    readonly text: string,
    readonly scimType: ScimType,
  ) {}

  fail(detail: string): never {
    throw scimBadRequest(this.scimType, detail);
  }

  peek(): string | undefined {
    return this.text[this.position];
  }

  atEnd(): boolean {
    return this.position >= this.text.length;
  }

  /** Skips spaces; returns how many. */
  skipSpaces(): number {
    const start = this.position;
    while (this.text[this.position] === ' ') this.position++;
    return this.position - start;
  }

  /** Reads up to the next space, bracket or quote. */
  readWord(): string {
    const start = this.position;
    while (this.position < this.text.length && !WORD_ENDS.includes(this.text[this.position] as string)) {
      this.position++;
    }
    return this.text.slice(start, this.position);
  }
}

function checkName(scanner: Scanner, name: string): string {
  if (!ATTRIBUTE_NAME.test(name)) scanner.fail('An attribute name is malformed.');
  return name;
}

/** `[URN ":"] ATTRNAME ["." subAttr]` or `ATTRNAME "[" valFilter "]" ["." subAttr]`. */
function readPath(scanner: Scanner, allowFilter: boolean): ScimAttributePath {
  const word = scanner.readWord();
  if (word === '') scanner.fail('An attribute name is expected.');
  let schema: string | null = null;
  let names = word;
  if (asciiLower(word.slice(0, 4)) === 'urn:') {
    const colon = word.lastIndexOf(':');
    schema = word.slice(0, colon);
    names = word.slice(colon + 1);
  }
  const parts = names.split('.');
  if (parts.length > 2) scanner.fail('An attribute path has at most one sub-attribute.');
  const attribute = checkName(scanner, parts[0] as string);
  let subAttribute = parts.length === 2 ? checkName(scanner, parts[1] as string) : null;
  let filter: ScimValueFilter | null = null;
  if (scanner.peek() === '[') {
    if (!allowFilter || subAttribute !== null) scanner.fail('A value filter is not allowed here.');
    scanner.position++;
    scanner.skipSpaces();
    const comparison = readComparison(scanner, false);
    if (comparison.path.schema !== null || comparison.path.subAttribute !== null) {
      scanner.fail('A value filter compares one sub-attribute.');
    }
    filter = { attribute: comparison.path.attribute, value: comparison.value };
    scanner.skipSpaces();
    if (scanner.peek() !== ']') scanner.fail('A value filter holds one comparison and ends with "]".');
    scanner.position++;
    if (scanner.peek() === '.') {
      scanner.position++;
      subAttribute = checkName(scanner, scanner.readWord());
    }
  }
  return { schema, attribute, filter, subAttribute };
}

function readValue(scanner: Scanner): ScimValue {
  if (scanner.peek() === '"') {
    const { text } = scanner;
    let end = scanner.position + 1;
    while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
    if (end >= text.length) scanner.fail('A string value is not terminated.');
    const literal = text.slice(scanner.position, end + 1);
    scanner.position = end + 1;
    try {
      return JSON.parse(literal) as string;
    } catch {
      return scanner.fail('A string value is not a valid JSON string.');
    }
  }
  const word = scanner.readWord();
  if (word === 'true') return true;
  if (word === 'false') return false;
  if (word === 'null') return null;
  if (NUMBER.test(word)) return Number(word);
  return scanner.fail('A value is a JSON string in double quotes, true, false, null or a number.');
}

function readComparison(scanner: Scanner, allowFilter: boolean): ScimComparison {
  const path = readPath(scanner, allowFilter);
  if (scanner.skipSpaces() === 0) scanner.fail('An operator is expected after the attribute.');
  const operator = scanner.readWord();
  if (!sameName(operator, 'eq')) scanner.fail('Only the "eq" operator is supported.');
  if (scanner.skipSpaces() === 0) scanner.fail('A value is expected after "eq".');
  return { path, value: readValue(scanner) };
}

/**
 * A PATCH operation's `path`: an attribute, a sub-attribute, a schema URN before them, and one `eq`
 * value filter (`members[value eq "…"]`, `emails[type eq "work"].value`). Anything else is `400
 * invalidPath`.
 */
export function parseAttributePath(text: string): ScimAttributePath {
  const scanner = new Scanner(text, 'invalidPath');
  const path = readPath(scanner, true);
  if (!scanner.atEnd()) scanner.fail('The path has more after the attribute.');
  return path;
}

/**
 * A `filter` query parameter holding one `attrPath eq compValue` comparison (spaces around it and the
 * operator's case do not matter). Anything else (another operator, `and`, `or`, `not`, grouping) is
 * `400 invalidFilter`.
 */
export function parseComparison(text: string): ScimComparison {
  const scanner = new Scanner(text, 'invalidFilter');
  scanner.skipSpaces();
  const comparison = readComparison(scanner, true);
  scanner.skipSpaces();
  if (!scanner.atEnd()) scanner.fail('Only one comparison is supported; "and", "or" and "not" are not.');
  return comparison;
}
