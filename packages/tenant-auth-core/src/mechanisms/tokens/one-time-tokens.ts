import { createHash } from 'node:crypto';
import type { CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import type { Clock, RandomBytes } from '../../vocabulary/clock.js';
import { uuidv7 } from '../../vocabulary/ids.js';
import type { OneTimeTokenKind, OneTimeTokenRecord } from '../../vocabulary/records.js';
import type { Role } from '../../vocabulary/roles.js';

/** 32 random bytes, base64url without padding: 43 characters. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** @internal Lifetimes of the kinds whose lifetime is fixed by the contract (docs/http-api.md, "One-time tokens and email"), in seconds. */
export const FIXED_LIFETIMES = {
  password_reset: 30 * 60,
  email_verification: 24 * 3600,
  email_change: 3600,
} as const;

/** @internal The page of the application each kind's link opens (under `appUrl`). */
export const LINK_PATHS: Record<OneTimeTokenKind, string> = {
  invitation: '/accept-invitation',
  password_reset: '/reset-password',
  email_verification: '/verify-email',
  email_change: '/confirm-email-change',
};

/** @internal SHA-256 (hex) of a presented token, or `null` when it cannot be one of ours. */
export function hashOneTimeToken(token: unknown): string | null {
  if (typeof token !== 'string' || !TOKEN.test(token)) return null;
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** @internal Issues one-time tokens: 256 random bits, stored only as their SHA-256. */
export function createOneTimeTokens(clock: Clock, random: RandomBytes) {
  return {
    /**
     * Issues a token through the stores of the caller's transaction, replacing the older one of the same
     * subject, and returns the token itself (for the link: it is stored nowhere).
     */
    async issue(
      tx: CompleteTransactionStores,
      fields: {
        kind: OneTimeTokenKind;
        tenantId: string;
        userId: string | null;
        email: string;
        lifetimeSeconds: number;
        role?: Role | null;
        createdBy?: string | null;
        sessionId?: string | null;
      },
    ): Promise<{ token: string; record: OneTimeTokenRecord }> {
      const token = Buffer.from(random(32)).toString('base64url');
      const now = clock.now();
      const record: OneTimeTokenRecord = {
        id: uuidv7(clock, random),
        kind: fields.kind,
        tenantId: fields.tenantId,
        userId: fields.userId,
        email: fields.email,
        role: fields.role ?? null,
        createdBy: fields.createdBy ?? null,
        sessionId: fields.sessionId ?? null,
        tokenHash: hashOneTimeToken(token) as string,
        createdAt: now,
        expiresAt: new Date(now.getTime() + fields.lifetimeSeconds * 1000),
      };
      await tx.oneTimeTokens.issue(record);
      return { token, record };
    },
  };
}

/** @internal */
export type OneTimeTokens = ReturnType<typeof createOneTimeTokens>;
