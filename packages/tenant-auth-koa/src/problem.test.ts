import { TenantAuthError } from 'tenant-auth-core';
import { describe, expect, it } from 'vitest';
import { problemOf } from './problem.js';

describe('problemOf', () => {
  it('answers email_not_verified as 403 with its own code (API.md 1.2), not as an internal error', () => {
    const problem = problemOf(new TenantAuthError('email_not_verified', 'Verify your email address first.'));
    expect(problem).toMatchObject({ status: 403, code: 'email_not_verified', unexpected: false });
  });
});
