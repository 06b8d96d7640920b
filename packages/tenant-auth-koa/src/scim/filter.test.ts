import { describe, expect, it } from 'vitest';
import { parseGroupFilter, parseUserFilter } from './filter.js';
import { expectScimError } from './test-helpers.js';

describe('parseUserFilter', () => {
  it('userName eq is the address, not case-exact (core compares normalised addresses)', () => {
    expect(parseUserFilter('userName eq "Ada@Example.com"')).toEqual({
      attribute: 'email',
      value: 'Ada@Example.com',
      caseExact: false,
    });
  });

  it('emails[type eq "work"].value eq is the same address (Entra ID matches on it)', () => {
    expect(parseUserFilter('emails[type eq "work"].value eq "ada@example.com"')).toEqual({
      attribute: 'email',
      value: 'ada@example.com',
      caseExact: false,
    });
    expect(parseUserFilter('emails[type eq "Work"].value eq "a@b.c"').attribute).toBe('email');
  });

  it('externalId eq and id eq are case-exact', () => {
    expect(parseUserFilter('externalId eq "00ujl29u0le5T6Aj10h7"')).toEqual({
      attribute: 'externalId',
      value: '00ujl29u0le5T6Aj10h7',
      caseExact: true,
    });
    expect(parseUserFilter('id eq "u_1"')).toEqual({ attribute: 'id', value: 'u_1', caseExact: true });
  });

  it('attribute names and the operator in any case, and the User schema URN before them', () => {
    expect(parseUserFilter('USERNAME Eq "a"').attribute).toBe('email');
    expect(parseUserFilter('externalid eq "x"').attribute).toBe('externalId');
    expect(parseUserFilter('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "a"').attribute).toBe(
      'email',
    );
  });

  it('any string value is a filter that may find no one (Entra ID tests the connection with one)', () => {
    expect(parseUserFilter('userName eq "non-existent user"').value).toBe('non-existent user');
    expect(parseUserFilter('userName eq ""').value).toBe('');
  });

  it.each([
    ['displayName eq "Ada"', 'an attribute without a filter'],
    ['name.givenName eq "Ada"', 'a sub-attribute'],
    ['emails.value eq "a@b.c"', 'any email'],
    ['emails[type eq "home"].value eq "a@b.c"', 'another type of email'],
    ['emails[type eq "work"] eq "a@b.c"', 'the email without .value'],
    ['emails[primary eq true].value eq "a@b.c"', 'another value filter'],
    ['userName sw "a"', 'another operator'],
    ['userName eq "a" and active eq true', 'two comparisons (Entra ID example 4: id and manager)'],
    ['externalId eq jyoung', 'an unquoted value'],
    ['id eq 42', 'a number'],
    ['userName eq null', 'null'],
    ['urn:ietf:params:scim:schemas:core:2.0:Group:userName eq "a"', "another resource's schema"],
    ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber eq "1"', 'an extension'],
    ['', 'nothing'],
  ])('refuses %j (%s) as 400 invalidFilter', (filter) => {
    expectScimError(() => parseUserFilter(filter), 'invalidFilter');
  });
});

describe('parseGroupFilter', () => {
  it('displayName eq, not case-exact (RFC 7643 8.7.1)', () => {
    expect(parseGroupFilter('displayName eq "Engineering"')).toEqual({
      attribute: 'displayName',
      value: 'Engineering',
      caseExact: false,
    });
    expect(parseGroupFilter('urn:ietf:params:scim:schemas:core:2.0:Group:DISPLAYNAME eq "x"').value).toBe(
      'x',
    );
  });

  it.each([
    ['userName eq "a"'],
    ['externalId eq "a"'],
    ['id eq "a"'],
    ['displayName co "Eng"'],
    ['displayName eq 1'],
    ['members[value eq "u_1"] eq "x"'],
    ['urn:ietf:params:scim:schemas:core:2.0:User:displayName eq "a"'],
  ])('refuses %j as 400 invalidFilter', (filter) => {
    expectScimError(() => parseGroupFilter(filter), 'invalidFilter');
  });
});
