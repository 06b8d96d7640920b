import { describe, expect, it } from 'vitest';
import { hasForbiddenKey, hasIllFormedText } from './json-body.js';

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
