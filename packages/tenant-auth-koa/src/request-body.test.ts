import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { hasForbiddenKey, hasIllFormedText, requestBody } from './request-body.js';

describe('hasForbiddenKey', () => {
  it('finds __proto__, constructor and prototype as own keys at any depth', () => {
    expect(hasForbiddenKey(JSON.parse('{"__proto__":{"admin":true}}'))).toBe(true);
    expect(hasForbiddenKey(JSON.parse('{"a":[{"b":{"constructor":{}}}]}'))).toBe(true);
    expect(hasForbiddenKey(JSON.parse('[[{"prototype":1}]]'))).toBe(true);
  });

  it('accepts ordinary values, including those words as values', () => {
    expect(
      hasForbiddenKey(
        JSON.parse('{"email":"a@example.com","note":"constructor __proto__","list":[1,"x",null]}'),
      ),
    ).toBe(false);
    expect(hasForbiddenKey('__proto__')).toBe(false);
    expect(hasForbiddenKey(null)).toBe(false);
  });

  it('walks very deep input without exhausting the stack', () => {
    const depth = 200_000;
    const deep = JSON.parse(`${'['.repeat(depth)}{"constructor":1}${']'.repeat(depth)}`);
    expect(hasForbiddenKey(deep)).toBe(true);
  });
});

describe('hasIllFormedText', () => {
  it('finds a lone surrogate in a value or a key at any depth, and passes well-formed text', () => {
    expect(hasIllFormedText(JSON.parse('{"a":"\\udc00"}'))).toBe(true);
    expect(hasIllFormedText(JSON.parse('{"a":[{"b":"é\\ud800x"}]}'))).toBe(true);
    expect(hasIllFormedText(JSON.parse('{"\\udc00":1}'))).toBe(true);
    expect(hasIllFormedText(JSON.parse('{"a":"😀 café","b":[1,null,true]}'))).toBe(false);
  });
});

describe('requestBody', () => {
  /** A Koa context for `POST /projects`, as Koa builds it for a request nothing has parsed. */
  function contextOf(path: string) {
    const req = new IncomingMessage(new Socket());
    req.method = 'POST';
    req.url = path;
    return new Koa().createContext(req, new ServerResponse(req));
  }

  it('outside the prefix, throws an Error saying it only works under the prefix (not a TypeError later)', () => {
    const ctx = contextOf('/projects');
    expect(() => requestBody(ctx)).toThrow(Error);
    expect(() => requestBody(ctx)).not.toThrow(TypeError);
    expect(() => requestBody(ctx)).toThrow(
      /^requestBody\(\) is only available for requests under tenant-auth's prefix: .*POST \/projects is not under it/,
    );
  });

  it("returns what a parser set: tenant-auth's under the prefix, or the application's own", () => {
    const ctx = contextOf('/projects');
    (ctx.request as { body?: unknown }).body = { name: 'Difference Engine' };
    expect(requestBody(ctx)).toEqual({ name: 'Difference Engine' });
  });
});
