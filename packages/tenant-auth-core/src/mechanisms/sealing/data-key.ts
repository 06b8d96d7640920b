import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hkdfSync,
  type KeyObject,
} from 'node:crypto';
import type { RandomBytes } from '../../vocabulary/clock.js';

/**
 * A key that seals data at rest (AES-256-GCM): 32 random bytes, and an id stored beside every value it
 * seals, so the value opens with the right key after a rotation.
 *
 * @example
 * const key: DataKey = { id: 'k2026', key: Buffer.from(process.env.ENCRYPTION_KEY!, 'base64url') };
 */
export interface DataKey {
  /** 1 to 32 letters, digits, `_` or `-`; unique among the configured keys; not `r0` (the derived key's). */
  id: string;
  /** Exactly 32 bytes. */
  key: Uint8Array;
}

/**
 * The `dataKeys` option of `createTenantAuth`: the key new values are sealed with, and the older keys
 * that still open the values sealed before a rotation. To rotate: make a new key current and move the
 * old one to `previous` (values are re-sealed as they are rewritten; keep the old key as long as any
 * value sealed with it may remain: a TOTP secret lives until its factor is removed).
 *
 * @example
 * const dataKeys: DataKeysOptions = { current: { id: 'k2', key: newKey }, previous: [{ id: 'k1', key: oldKey }] };
 */
export interface DataKeysOptions {
  current: DataKey;
  previous?: DataKey[];
}

/** @internal The id of the key derived from the refresh secret when no `dataKeys` are given. */
export const DERIVED_KEY_ID = 'r0';

const VERSION = 'v1';
/** The full 128-bit GCM tag, said explicitly: a shorter tag given to `setAuthTag` must never be taken. */
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * @internal Seals and opens values at rest with AES-256-GCM. A sealed value is
 * `v1.<key id>.<iv>.<ciphertext and tag>` (base64url), authenticated with its purpose and its binding
 * (the row it belongs to: a value copied to another row does not open). Outbox payloads and TOTP
 * secrets go through this one mechanism.
 */
export interface DataSealer {
  /** The id of the key new values are sealed with. */
  readonly currentKeyId: string;
  seal(plaintext: Uint8Array, purpose: string, binding: string): string;
  /**
   * The plaintext. Throws {@link SealedValueError}: `unknown_data_key` when the key the value names is
   * not configured, `malformed_sealed_value` when it is not a sealed value, `sealed_value_not_authentic`
   * when it was sealed for another purpose or row, or altered.
   */
  open(sealed: string, purpose: string, binding: string): Buffer;
  /**
   * The id of the key a value names (`r0` for 1.1's outbox payloads, which name none), or `null` when it
   * is not a sealed value. Says nothing of whether it opens.
   */
  keyIdOf(sealed: string): string | null;
  /**
   * HMAC-SHA-256 (base64url) of `data` under a key derived for `purpose` (HKDF-SHA256) from each
   * configured key: the current key's first, then the previous ones and the refresh secret's. For what is
   * hashed with a server-side key (recovery codes): a new value takes the first, a check tries them all.
   */
  macs(purpose: string, data: string): string[];
}

/** @internal Why a sealed value did not open (a stable code, for logs and the re-seal command). */
export type SealedValueErrorCode =
  | 'unknown_data_key'
  | 'malformed_sealed_value'
  | 'sealed_value_not_authentic';

/**
 * @internal A sealed value that does not open. Never carries the value nor a key: only the code and, when
 * the value names one, the id of its key.
 */
export class SealedValueError extends Error {
  override readonly name = 'SealedValueError';
  constructor(
    readonly code: SealedValueErrorCode,
    readonly keyId: string | null,
    message: string,
  ) {
    super(message);
  }
}

/** @internal The key the refresh secret gives (HKDF-SHA256), as 1.1 sealed its outbox with. */
export function derivedDataKey(refreshSecret: Uint8Array): DataKey {
  const key = Buffer.from(hkdfSync('sha256', refreshSecret, Buffer.alloc(0), 'tenant-auth/outbox/v1', 32));
  return { id: DERIVED_KEY_ID, key };
}

/** @internal What is wrong with a `dataKeys` option (a sentence for `invalid_configuration`), or `undefined`. */
export function dataKeysProblem(value: unknown): { option: string; problem: string } | undefined {
  if (typeof value !== 'object' || value === null)
    return { option: 'dataKeys', problem: 'must be an object' };
  const { current, previous = [] } = value as { current?: unknown; previous?: unknown };
  if (!Array.isArray(previous)) return { option: 'dataKeys.previous', problem: 'must be an array' };
  const ids = new Set<string>();
  for (const [option, key] of [
    ['dataKeys.current', current],
    ...previous.map((k, i) => [`dataKeys.previous[${i}]`, k] as const),
  ] as const) {
    const { id, key: bytes } = (key ?? {}) as { id?: unknown; key?: unknown };
    if (typeof id !== 'string' || !KEY_ID.test(id))
      return { option: `${option}.id`, problem: 'must be 1 to 32 letters, digits, _ or -' };
    if (ids.has(id)) return { option: `${option}.id`, problem: `repeats the key id ${id}` };
    if (id === DERIVED_KEY_ID)
      return {
        option: `${option}.id`,
        problem: `must not be ${DERIVED_KEY_ID}, the id of the key derived from refreshSecret`,
      };
    ids.add(id);
    if (!(bytes instanceof Uint8Array) || bytes.length !== 32)
      return { option: `${option}.key`, problem: 'must be a Uint8Array of exactly 32 random bytes' };
  }
  return undefined;
}

const additionalData = (purpose: string, binding: string) =>
  Buffer.from(`tenant-auth/${purpose}\u0000${binding}`, 'utf8');

function decrypt(keyId: string, key: Uint8Array, iv: string, body: string, aad: Buffer): Buffer {
  const bytes = Buffer.from(body, 'base64url');
  if (bytes.length < TAG_BYTES)
    throw new SealedValueError('malformed_sealed_value', keyId, 'not a sealed value');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(aad);
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new SealedValueError(
      'sealed_value_not_authentic',
      keyId,
      `the value named key ${keyId} but does not open with it: altered, or sealed for another row`,
    );
  }
}

/** A value's parts: `v1.<iv>.<body>` (1.1's outbox, the derived key) or `v1.<key id>.<iv>.<body>`. */
function partsOf(sealed: unknown): { keyId: string; iv: string; body: string; legacy: boolean } | null {
  const parts = typeof sealed === 'string' ? sealed.split('.') : [];
  if (parts[0] !== VERSION || parts.some((p) => p === '')) return null;
  if (parts.length === 3)
    return { keyId: DERIVED_KEY_ID, iv: parts[1] ?? '', body: parts[2] ?? '', legacy: true };
  if (parts.length === 4 && KEY_ID.test(parts[1] ?? ''))
    return { keyId: parts[1] ?? '', iv: parts[2] ?? '', body: parts[3] ?? '', legacy: false };
  return null;
}

/**
 * @internal A sealer over the configured keys. `legacy`, the key derived from the refresh secret, also
 * opens 1.1's outbox payloads (`v1.<iv>.<body>`: three parts, no key id, bound to the row alone),
 * whatever the keys.
 */
export function createDataSealer(keys: DataKeysOptions, legacy: DataKey, random: RandomBytes): DataSealer {
  const byId = new Map<string, Uint8Array>();
  for (const k of [keys.current, ...(keys.previous ?? []), legacy]) {
    if (!byId.has(k.id)) byId.set(k.id, Buffer.from(k.key));
  }
  const current = keys.current;
  // One subkey per key and purpose, derived once: never per request.
  const subkeys = new Map<string, KeyObject[]>();
  const subkeysOf = (purpose: string): KeyObject[] => {
    let found = subkeys.get(purpose);
    if (!found) {
      const ordered = [current.id, ...[...byId.keys()].filter((id) => id !== current.id)];
      found = ordered.map((id) =>
        createSecretKey(
          Buffer.from(
            hkdfSync('sha256', byId.get(id) as Uint8Array, Buffer.alloc(0), `tenant-auth/mac/${purpose}`, 32),
          ),
        ),
      );
      subkeys.set(purpose, found);
    }
    return found;
  };
  return {
    currentKeyId: current.id,
    macs(purpose, data) {
      return subkeysOf(purpose).map((key) =>
        createHmac('sha256', key).update(data, 'utf8').digest('base64url'),
      );
    },
    seal(plaintext, purpose, binding) {
      const iv = Buffer.from(random(12));
      const cipher = createCipheriv('aes-256-gcm', current.key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(additionalData(purpose, binding));
      const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}.${current.id}.${iv.toString('base64url')}.${body.toString('base64url')}`;
    },
    open(sealed, purpose, binding) {
      const parts = partsOf(sealed);
      // 1.1 sealed only outbox payloads, and named no key: the derived key, the row as additional data.
      if (!parts || (parts.legacy && purpose !== 'outbox'))
        throw new SealedValueError('malformed_sealed_value', null, 'not a sealed value');
      if (parts.legacy)
        return decrypt(legacy.id, legacy.key, parts.iv, parts.body, Buffer.from(binding, 'utf8'));
      const key = byId.get(parts.keyId);
      if (!key)
        throw new SealedValueError(
          'unknown_data_key',
          parts.keyId,
          `sealed with key ${parts.keyId}, which is not configured (dataKeys.previous)`,
        );
      return decrypt(parts.keyId, key, parts.iv, parts.body, additionalData(purpose, binding));
    },
    keyIdOf: (sealed) => partsOf(sealed)?.keyId ?? null,
  };
}
