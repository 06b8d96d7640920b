import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  ERROR_MESSAGES,
  ERROR_REGISTRY,
  ERROR_STATUS,
  SERVER_ONLY_ERROR_CODES,
  type TenantAuthErrorCode,
} from './error-registry.js';
import { errorOf, fieldError, TenantAuthError, validationError } from './errors.js';

// The registry and the contract list the same codes (the way fastify's test/internals/errors.test.js holds
// lib/errors.js and docs/Reference/Errors.md together): every code the error tables of docs/http-api.md
// name is registered with that status, and every registered code that reaches clients is in a table.
const contract = readFileSync(new URL('../../../../docs/http-api.md', import.meta.url), 'utf8');

/**
 * Codes the contract's 1.3 part documents that no feature implements yet. Each 1.3 feature that
 * registers one deletes its line here: the test fails until it does (and fails if a line is left for a
 * code no table names any more).
 */
const NOT_YET_IMPLEMENTED: readonly string[] = [];

/**
 * Registered codes that reach clients and that the contract's tables do not list (yet), each with its
 * reason: the contract is the specification's copy and is not edited here, so a code the specification
 * has not caught up with is stated here instead of passing unnoticed. The test fails for an entry once a
 * table lists it, or once it is no longer registered.
 */
const REGISTERED_NOT_DOCUMENTED: readonly string[] = [
  // 501: a feature of 1.2 whose store the application's bundle leaves out (a store set written for 1.1).
  'feature_unavailable',
];

/**
 * The HTTP layer's own codes: tenant-auth-koa answers them for requests that no operation of the table
 * handles (`method_not_allowed`: a known path with another method, `405`; `http_error`: an HTTP error a
 * host route under the prefix throws, which keeps its status). Core never raises them, so they are not
 * in its registry; tenant-auth-koa's PROBLEM_CODES adds them to the registry's codes (its contract test
 * ties the two). The contract's tables do not list them either (docs/http-api.md is a copy of the
 * specification, not edited here): a gap of the specification, stated here so that it stays visible.
 */
const HTTP_LAYER_CODES: readonly string[] = ['method_not_allowed', 'http_error'];

/** Each row of the contract's error tables (`| condition | status | code |`): its status and codes. */
function documentedErrors(): { status: number; code: string }[] {
  const rows: { status: number; code: string }[] = [];
  let inErrorTable = false;
  for (const line of contract.split('\n')) {
    if (!line.startsWith('|')) {
      inErrorTable = false;
      continue;
    }
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells[1] === 'condition' && cells[2] === 'status' && cells[3] === 'code') {
      inErrorTable = true;
      continue;
    }
    if (!inErrorTable || /^-+$/.test(cells[1] ?? '')) continue;
    // The codes are the backticked words before any remark: "`mfa_required` (body also has `mfaToken`)".
    const head = (cells[3] ?? '').split('(')[0] ?? '';
    for (const [, code] of head.matchAll(/`([a-z]+(?:_[a-z]+)*)`/g)) {
      rows.push({ status: Number(cells[2]), code: code as string });
    }
  }
  return rows;
}

const registered = new Set<string>(ERROR_CODES);
const documented = documentedErrors();
const documentedCodes = new Set(documented.map((row) => row.code));

describe('the error registry and the contract (docs/http-api.md)', () => {
  it('reads the error tables of every version of the contract', () => {
    // 1.0, 1.1, 1.2 and 1.3 each have one; a table that stops parsing must not pass for an empty one.
    expect(documented.length).toBeGreaterThanOrEqual(24);
    expect(documentedCodes).toContain('invalid_token');
    expect(documentedCodes).toContain('last_owner');
    expect(documentedCodes).toContain('domain_not_verified');
  });

  it('registers every code the tables name, with the status they give it', () => {
    const implemented = documented.filter((row) => !NOT_YET_IMPLEMENTED.includes(row.code));
    expect(implemented.filter((row) => !registered.has(row.code))).toEqual([]);
    expect(implemented.filter((row) => ERROR_STATUS[row.code as TenantAuthErrorCode] !== row.status)).toEqual(
      [],
    );
  });

  it('documents every registered code that reaches clients, and none that does not', () => {
    const reaching = ERROR_CODES.filter((code) => !SERVER_ONLY_ERROR_CODES.includes(code));
    const expected = reaching.filter((code) => !REGISTERED_NOT_DOCUMENTED.includes(code));
    expect(expected.filter((code) => !documentedCodes.has(code))).toEqual([]);
    for (const code of REGISTERED_NOT_DOCUMENTED) {
      expect({ code, registered: registered.has(code), documented: documentedCodes.has(code) }).toEqual({
        code,
        registered: true,
        documented: false,
      });
    }
    expect(SERVER_ONLY_ERROR_CODES.filter((code) => documentedCodes.has(code))).toEqual([]);
    expect(SERVER_ONLY_ERROR_CODES).toEqual(['email_taken', 'slug_taken', 'invalid_configuration']);
  });

  it('lists the codes of 1.3 that are documented and not implemented yet, until each is registered', () => {
    for (const code of NOT_YET_IMPLEMENTED) {
      expect({ code, documented: documentedCodes.has(code) }).toEqual({ code, documented: true });
      expect({ code, registered: registered.has(code) }).toEqual({ code, registered: false });
    }
  });

  it("keeps the HTTP layer's own codes out of the registry and out of the contract's tables", () => {
    for (const code of HTTP_LAYER_CODES) {
      expect({ code, registered: registered.has(code), documented: documentedCodes.has(code) }).toEqual({
        code,
        registered: false,
        documented: false,
      });
    }
  });
});

describe('the error registry', () => {
  it('states each code once, with a status of an error and a sentence', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_REGISTRY.length);
    for (const { code, status, message } of ERROR_REGISTRY) {
      expect(ERROR_STATUS[code]).toBe(status);
      expect(status >= 400 && status <= 599).toBe(true);
      expect(ERROR_MESSAGES[code]).toBe(message);
      expect(message).toMatch(/^[A-Z].*\.$/);
    }
    expect(Object.keys(ERROR_STATUS)).toEqual([...ERROR_CODES]);
  });

  it('gives an error its default message, its status and its options', () => {
    const error = errorOf('not_found');
    expect(error).toBeInstanceOf(TenantAuthError);
    expect([error.code, error.status, error.message]).toEqual(['not_found', 404, 'Not found.']);
    const invalid = validationError([fieldError('name', 'required', 'A name is required.')], {
      cause: new Error('driver'),
    });
    expect([invalid.code, invalid.status, invalid.message]).toEqual([
      'validation_failed',
      400,
      'The request is invalid.',
    ]);
    expect(invalid.errors).toEqual([{ field: 'name', code: 'required', message: 'A name is required.' }]);
    expect((invalid.cause as Error).message).toBe('driver');
  });
});
