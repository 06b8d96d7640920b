import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/core';

/**
 * Secrets that must never appear in a response body or a log line, and a scanner that finds them.
 * Shared by the log test (log-secrets.test.ts) and the fuzzer (fuzz.test.ts).
 *
 * Scanning extracts candidate substrings (JWT-shaped runs, base64url runs, 64-hex runs, bcrypt-shaped
 * runs) and looks each up in a set, so thousands of secrets over megabytes of log stay cheap. Passwords
 * are few and arbitrary, so they are searched as they are and as they appear inside a JSON string.
 */

/** SHA-256 (hex) of a refresh token: how the server stores one (`tenant_auth_session.refresh_hash`). */
export function refreshHashOf(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Any bcrypt hash, stored or not: `$2a$`/`$2b$`/`$2y$`, a cost, 53 salt-and-hash characters. */
const BCRYPT_PATTERN = /\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}/;
/** A JWT in compact form: three base64url parts, the first starting like a JSON object (`{"`). */
const JWT_PATTERN = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g;
const BASE64URL_RUN = /[A-Za-z0-9_-]{20,}/g;
const HEX64_RUN = /(?<![0-9a-fA-F])[0-9a-fA-F]{64}(?![0-9a-fA-F])/g;
const BCRYPT_BODY_RUN = /[./A-Za-z0-9]{53}/g;

export type LeakKind =
  | 'password'
  | 'token'
  | 'token-signature'
  | 'bcrypt-hash'
  | 'refresh-hash'
  | 'api-key'
  | 'api-key-hash';

export interface Leak {
  kind: LeakKind;
  /** Index of the line (or text) in which it was found. */
  index: number;
  /** The secret, shortened for a readable report. */
  secret: string;
}

/** The secrets to look for. Add to it as the test goes; scan whenever. */
export class SecretSet {
  readonly passwords = new Set<string>();
  readonly tokens = new Set<string>();
  /** Signature parts of `tokens` (43 characters for HS256): a token cut at its dots still leaks. */
  readonly signatures = new Set<string>();
  readonly refreshHashes = new Set<string>();
  /** The 53 characters after `$2b$NN$` of stored bcrypt hashes (found with or without the prefix). */
  readonly bcryptBodies = new Set<string>();
  /** API key secrets (`tak_…`) and their 43-character bodies: either one found is a leak. */
  readonly apiKeys = new Set<string>();
  /** SHA-256 (hex) of API key secrets: how the server stores them (`tenant_auth_api_key.secret_hash`). */
  readonly apiKeyHashes = new Set<string>();

  /** An API key's secret, its body without `tak_`, and the hash the server stores of it. */
  addApiKey(secret: string): void {
    this.apiKeys.add(secret);
    this.apiKeys.add(secret.slice(4));
    this.apiKeyHashes.add(refreshHashOf(secret));
  }

  addApiKeyHash(hash: string | null | undefined): void {
    if (hash) this.apiKeyHashes.add(hash.trim().toLowerCase());
  }

  /** Passwords shorter than 8 characters would match ordinary text; the tests use long ones. */
  addPassword(password: string): void {
    if (password.length >= 8) this.passwords.add(password);
  }

  /** A token, its signature part, and (it may be a refresh token) the hash the server would store. */
  addToken(token: string): void {
    if (token.length < 20) return;
    this.tokens.add(token);
    const signature = token.split('.')[2];
    if (signature !== undefined && signature.length >= 20) this.signatures.add(signature);
    this.refreshHashes.add(refreshHashOf(token));
  }

  addRefreshHash(hash: string | null | undefined): void {
    if (hash) this.refreshHashes.add(hash.toLowerCase());
  }

  addBcryptHash(hash: string | null | undefined): void {
    if (hash && hash.length >= 53) this.bcryptBodies.add(hash.slice(-53));
  }

  /** Adds every password hash and refresh hash the database holds now. */
  async addStored(orm: MikroORM): Promise<void> {
    const stored = await storedSecrets(orm);
    for (const h of stored.passwordHashes) this.addBcryptHash(h);
    for (const h of stored.refreshHashes) this.addRefreshHash(h);
  }

  /** Every secret found in `text`, none twice. */
  scan(text: string, index = 0): Leak[] {
    const leaks: Leak[] = [];
    const seen = new Set<string>();
    const report = (kind: LeakKind, secret: string) => {
      const key = `${kind}:${secret}`;
      if (seen.has(key)) return;
      seen.add(key);
      leaks.push({
        kind,
        index,
        secret: secret.length > 24 ? `${secret.slice(0, 12)}…${secret.slice(-8)}` : secret,
      });
    };
    for (const password of this.passwords) {
      if (text.includes(password) || text.includes(JSON.stringify(password).slice(1, -1))) {
        report('password', password);
      }
    }
    for (const m of text.matchAll(JWT_PATTERN)) if (this.tokens.has(m[0])) report('token', m[0]);
    for (const m of text.matchAll(BASE64URL_RUN)) {
      if (this.signatures.has(m[0])) report('token-signature', m[0]);
      if (this.apiKeys.has(m[0])) report('api-key', m[0]);
    }
    for (const m of text.matchAll(HEX64_RUN)) {
      if (this.refreshHashes.has(m[0].toLowerCase())) report('refresh-hash', m[0]);
      if (this.apiKeyHashes.has(m[0].toLowerCase())) report('api-key-hash', m[0]);
    }
    const bcrypt = BCRYPT_PATTERN.exec(text);
    if (bcrypt) report('bcrypt-hash', bcrypt[0]);
    for (const m of text.matchAll(BCRYPT_BODY_RUN)) {
      if (this.bcryptBodies.has(m[0])) report('bcrypt-hash', m[0]);
    }
    return leaks;
  }

  /** Every secret found in any of `lines`, with the index of the line. */
  scanLines(lines: readonly string[]): Leak[] {
    return lines.flatMap((line, i) => this.scan(line, i));
  }
}

/**
 * What the database stores that is secret: every bcrypt hash, every current or previous refresh hash, and
 * every API key's secret hash.
 */
export async function storedSecrets(
  orm: MikroORM,
): Promise<{ passwordHashes: string[]; refreshHashes: string[]; apiKeyHashes: string[] }> {
  const connection = orm.em.fork().getConnection();
  const users: { password_hash: string }[] = await connection.execute(
    'select password_hash from tenant_auth_user',
  );
  const sessions: { refresh_hash: string; previous_refresh_hash: string | null }[] = await connection.execute(
    'select refresh_hash, previous_refresh_hash from tenant_auth_session',
  );
  const keys: { secret_hash: string }[] = await connection.execute(
    'select secret_hash from tenant_auth_api_key',
  );
  return {
    apiKeyHashes: keys.map((k) => k.secret_hash.trim()),
    passwordHashes: users.map((u) => u.password_hash),
    refreshHashes: sessions.flatMap((s) =>
      s.previous_refresh_hash ? [s.refresh_hash, s.previous_refresh_hash] : [s.refresh_hash],
    ),
  };
}

/** A leak, with the line it was found in (cut), for an assertion message. */
export function describeLeaks(leaks: readonly Leak[], lines: readonly string[]): string {
  return leaks
    .map((l) => `${l.kind} ${l.secret} in line ${l.index}: ${(lines[l.index] ?? '').slice(0, 300)}`)
    .join('\n');
}
