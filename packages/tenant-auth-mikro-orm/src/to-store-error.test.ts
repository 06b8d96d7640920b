import { ConnectionException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { TenantAuthError } from 'tenant-auth-core';
import { describe, expect, it } from 'vitest';
import { StoreDriverError, toStoreError, UNIQUE_CONSTRAINTS } from './to-store-error.js';

/** A pg-style error as the driver raises it: message with SQL and values, code, constraint. */
function pgError(fields: Record<string, unknown>): Error {
  return Object.assign(
    new Error(
      'duplicate key value violates unique constraint "x" - insert into "tenant_auth_user" values (secret)',
    ),
    fields,
  );
}

describe('toStoreError', () => {
  it('maps a violation of the email constraint to email_taken and of the slug constraint to slug_taken', () => {
    const email = new UniqueConstraintViolationException(
      pgError({ code: '23505', constraint: UNIQUE_CONSTRAINTS.email }),
    );
    const slug = new UniqueConstraintViolationException(
      pgError({ code: '23505', constraint: UNIQUE_CONSTRAINTS.slug }),
    );
    expect(toStoreError(email)).toMatchObject({
      code: 'email_taken',
      status: 409,
      cause: { code: '23505', constraint: UNIQUE_CONSTRAINTS.email },
    });
    expect(toStoreError(slug)).toMatchObject({
      code: 'slug_taken',
      status: 409,
      cause: { code: '23505', constraint: UNIQUE_CONSTRAINTS.slug },
    });
  });

  it('maps an unconverted unique violation (raw SQLSTATE) by its constraint too', () => {
    expect(toStoreError(pgError({ code: '23505', constraint: UNIQUE_CONSTRAINTS.email })).code).toBe(
      'email_taken',
    );
  });

  it('does not call any other unique violation a taken email', () => {
    const pk = new UniqueConstraintViolationException(
      pgError({ code: '23505', constraint: 'tenant_auth_session_pkey' }),
    );
    expect(toStoreError(pk).code).toBe('internal_error');
  });

  it('maps connection failures to unavailable', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(toStoreError(refused).code).toBe('unavailable');
    expect(toStoreError(new AggregateError([refused], '')).code).toBe('unavailable');
    expect(toStoreError(new ConnectionException(new Error('gone'))).code).toBe('unavailable');
    expect(toStoreError(pgError({ code: '57P01' })).code).toBe('unavailable'); // admin shutdown
    expect(toStoreError(pgError({ code: '53300' })).code).toBe('unavailable'); // too many connections
    expect(toStoreError(new Error('timeout exceeded when trying to connect')).code).toBe('unavailable');
    const refusing = Object.assign(new Error('database "app" is not currently accepting connections'), {
      code: '55000',
    });
    expect(toStoreError(refusing).code).toBe('unavailable'); // ALTER DATABASE ... ALLOW_CONNECTIONS false
    expect(toStoreError(pgError({ code: '55000' })).code).toBe('internal_error');
  });

  it('maps anything else to internal_error', () => {
    expect(toStoreError(pgError({ code: '42P01' })).code).toBe('internal_error');
    expect(toStoreError('a string').code).toBe('internal_error');
  });

  it('keeps only a summary of the driver error as cause, with no SQL or row values', () => {
    const driverError = new UniqueConstraintViolationException(
      pgError({
        code: '23505',
        constraint: UNIQUE_CONSTRAINTS.email,
        detail: 'Key (email)=(ada@example.com) exists',
      }),
    );
    for (const err of [driverError, pgError({ code: '42P01' }), pgError({ code: 'ECONNREFUSED' })]) {
      const mapped = toStoreError(err);
      expect(mapped.message).not.toMatch(/insert|tenant_auth|secret|duplicate|constraint|ECONN/i);
      expect(mapped.cause).toBeInstanceOf(StoreDriverError);
      const cause = mapped.cause as StoreDriverError;
      expect(cause.code).toBe((err as { code?: string }).code ?? '23505');
      expect(`${cause.message} ${cause.stack} ${JSON.stringify(cause)}`).not.toMatch(
        /insert|secret|ada@example/i,
      );
    }
    expect((toStoreError(driverError).cause as StoreDriverError).message).toBe(
      `UniqueConstraintViolationException (code 23505, constraint ${UNIQUE_CONSTRAINTS.email})`,
    );
  });

  it('maps a pg query read timeout (query_timeout) to unavailable', () => {
    expect(toStoreError(new Error('Query read timeout')).code).toBe('unavailable');
  });

  it('passes TenantAuthErrors through unchanged', () => {
    const err = new TenantAuthError('slug_taken', 'taken');
    expect(toStoreError(err)).toBe(err);
  });
});
