import { describe, expect, it } from 'vitest';
import { parseAttributePath, parseComparison } from './attribute-path.js';
import { expectScimError } from './test-helpers.js';

describe('parseAttributePath', () => {
  it('reads an attribute, a sub-attribute, a schema URN and one eq value filter', () => {
    expect(parseAttributePath('userName')).toEqual({
      schema: null,
      attribute: 'userName',
      filter: null,
      subAttribute: null,
    });
    expect(parseAttributePath('name.givenName')).toMatchObject({
      attribute: 'name',
      subAttribute: 'givenName',
    });
    expect(parseAttributePath('emails[type eq "work"].value')).toEqual({
      schema: null,
      attribute: 'emails',
      filter: { attribute: 'type', value: 'work' },
      subAttribute: 'value',
    });
    expect(parseAttributePath('members[value eq "2819c223-7f76"]')).toMatchObject({
      attribute: 'members',
      filter: { attribute: 'value', value: '2819c223-7f76' },
      subAttribute: null,
    });
    expect(parseAttributePath('urn:ietf:params:scim:schemas:core:2.0:User:name.givenName')).toMatchObject({
      schema: 'urn:ietf:params:scim:schemas:core:2.0:User',
      attribute: 'name',
      subAttribute: 'givenName',
    });
    expect(
      parseAttributePath('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber'),
    ).toMatchObject({
      schema: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
      attribute: 'employeeNumber',
    });
    expect(parseAttributePath('emails[primary eq true]').filter).toEqual({
      attribute: 'primary',
      value: true,
    });
  });

  it('reads a filter value as JSON: escapes, a bracket or a colon inside the quotes', () => {
    expect(parseAttributePath('members[value eq "a]b"]').filter?.value).toBe('a]b');
    expect(parseAttributePath('members[value eq "a\\"b\\\\c\\u0041"]').filter?.value).toBe('a"b\\cA');
    expect(parseAttributePath('members[value eq "urn:x:y"]').filter?.value).toBe('urn:x:y');
  });

  it.each([
    ['', 'nothing'],
    [' userName', 'a leading space'],
    ['userName ', 'a trailing space'],
    ['name.givenName.first', 'two sub-attributes'],
    ['name..givenName', 'an empty sub-attribute'],
    ['1name', 'a name that starts with a digit'],
    ['emails[type eq "work"', 'an unclosed bracket'],
    ['emails[type ne "work"]', 'another operator'],
    ['emails[type eq "work" and primary eq true]', 'two comparisons'],
    ['emails[type eq "work"]value', 'text after the bracket'],
    ['name.givenName[type eq "x"]', 'a filter after a sub-attribute'],
    ['emails[type.x eq "work"]', 'a filter on a sub-sub-attribute'],
    ['emails[urn:x:type eq "work"]', 'a schema inside a filter'],
    ['emails[type eq work]', 'an unquoted string'],
    ['emails[type eq "work]', 'an unterminated string'],
    ['emails[type eq "\\x"]', 'an escape JSON does not know'],
    ['emails[type[value eq "a"] eq "b"]', 'a filter inside a filter'],
  ])('refuses %j (%s) as invalidPath', (path) => {
    expectScimError(() => parseAttributePath(path), 'invalidPath');
  });
});

describe('parseComparison', () => {
  it('reads one eq comparison; the operator in any case, spaces around it', () => {
    expect(parseComparison('userName eq "ada@example.com"')).toEqual({
      path: { schema: null, attribute: 'userName', filter: null, subAttribute: null },
      value: 'ada@example.com',
    });
    expect(parseComparison('  userName  EQ  "a"  ').value).toBe('a');
    expect(parseComparison('emails[type eq "work"].value eq "a@b.c"').path).toMatchObject({
      attribute: 'emails',
      filter: { attribute: 'type', value: 'work' },
      subAttribute: 'value',
    });
    expect(parseComparison('active eq true').value).toBe(true);
    expect(parseComparison('x eq null').value).toBeNull();
    expect(parseComparison('x eq -1.5e3').value).toBe(-1500);
  });

  it.each([
    ['userName ne "a"'],
    ['userName co "a"'],
    ['userName sw "a"'],
    ['userName pr'],
    ['userName eq "a" and active eq true'],
    ['userName eq "a" or userName eq "b"'],
    ['not (userName eq "a")'],
    ['(userName eq "a")'],
    ['userName eq'],
    ['userName eq "a" "b"'],
    ['userName\teq "a"'],
    ['userName eq 01'],
  ])('refuses %j as invalidFilter', (filter) => {
    expectScimError(() => parseComparison(filter), 'invalidFilter');
  });

  it('reads a hostile string in time proportional to its length (scim2-parse-filter backtracks for hours)', () => {
    // scim2-parse-filter 0.2.10's tokenizer regex takes ~4x longer per two more newlines (130 ms at 24).
    const hostile = `userName eq "${'\n'.repeat(200_000)}`;
    expectScimError(() => parseComparison(hostile), 'invalidFilter');
    const escapes = `userName eq "${'\\"'.repeat(100_000)}`;
    expectScimError(() => parseComparison(escapes), 'invalidFilter');
  });
});
