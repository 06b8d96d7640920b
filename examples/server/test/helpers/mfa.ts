import { generateSync } from 'otplib';
import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { expect } from 'vitest';
import { type ApiResponse, api, PASSWORD } from './http.js';

/**
 * The TOTP code of a base32 secret at a time, computed by otplib (RFC 6238: SHA-1, 6 digits, 30 s), as an
 * authenticator app would.
 *
 * @example const code = totpCode(secret, clock.now());
 */
export function totpCode(secret: string, at: Date): string {
  return generateSync({ strategy: 'totp', secret, epoch: Math.floor(at.getTime() / 1000) });
}

/** The claims of a JWT, unverified (the tests read what the server signed). */
export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

/** The body of a `mfa_required` / `mfa_setup_required` problem. */
export interface MfaProblem {
  code: string;
  mfaToken: string;
  methods?: string[];
  expiresIn: number;
}

/** A token response of a TOTP confirmation with an `mfaToken`. */
export type ConfirmedJson = TokenResponseJson & { recoveryCodes: string[] | null };

/**
 * Enrols a TOTP factor for the caller of `accessToken` (recent: just registered or reauthenticated):
 * setup, then confirm with the code of `at`. Returns the secret and the recovery codes.
 *
 * @example const { secret, recoveryCodes } = await enrolTotp(url, reg.accessToken, clock.now());
 */
export async function enrolTotp(
  url: string,
  accessToken: string,
  at: Date,
): Promise<{ secret: string; otpauthUri: string; recoveryCodes: string[] }> {
  const setup = await api<{ secret: string; otpauthUri: string }>(url, '/auth/mfa/totp/setup', {
    method: 'POST',
    token: accessToken,
  });
  expect(setup.status).toBe(200);
  const confirm = await api<{ recoveryCodes: string[] }>(url, '/auth/mfa/totp/confirm', {
    token: accessToken,
    body: { code: totpCode(setup.body.secret, at) },
  });
  expect(confirm.status).toBe(200);
  expect(confirm.body.recoveryCodes).toHaveLength(10);
  return { ...setup.body, recoveryCodes: confirm.body.recoveryCodes };
}

/**
 * Logs in with the password; expects `401 mfa_required` and returns its `mfaToken`.
 *
 * @example const mfaToken = await passwordStep(url, email);
 */
export async function passwordStep(
  url: string,
  email: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const r: ApiResponse<MfaProblem> = await api<MfaProblem>(url, '/auth/login', {
    body: { email, password: PASSWORD },
    headers,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(401);
  expect(r.body.code).toBe('mfa_required');
  return r.body.mfaToken;
}
