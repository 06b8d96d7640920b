import type { Background } from './background.js';
import type { Clock, RandomBytes } from './clock.js';
import type { EventLog } from './events/event-log.js';
import type { Logger } from './logger.js';
import type { MailOutbox } from './mail/mail-outbox.js';
import type { SecondFactorGate } from './mfa/second-factor-gate.js';
import type { PasswordHasher } from './passwords/hasher.js';
import type { PasswordPolicy } from './passwords/policy.js';
import type { RequestLimits } from './rate-limit/request-limits.js';
import type { DataSealer } from './sealing/data-key.js';
import type { ActiveSessionCache } from './sessions/active-session-cache.js';
import type { SessionTokens } from './sessions/session-tokens.js';
import type { TenantAuthStores } from './stores/tenant-auth-stores.js';
import type { OneTimeTokens } from './tokens/one-time-tokens.js';
import type { PasskeyCeremonies } from './webauthn/passkey-ceremonies.js';

/** @internal What the services of 1.1 share, built once by `createTenantAuth`. */
export interface Services {
  stores: TenantAuthStores;
  clock: Clock;
  random: RandomBytes;
  logger: Logger;
  events: EventLog;
  hasher: PasswordHasher;
  policy: PasswordPolicy;
  sessionTokens: SessionTokens;
  cache: ActiveSessionCache;
  oneTimeTokens: OneTimeTokens;
  /** `undefined` when the `mail` option is not set. */
  mail: MailOutbox | undefined;
  /** `undefined` when rate limiting is off. */
  limits: RequestLimits | undefined;
  background: Background;
  invitationTtlSeconds: number;
  /** Seals TOTP secrets (and the outbox's payloads). */
  sealer: DataSealer;
  /** What every first factor passes through before a session is made. */
  secondFactor: SecondFactorGate;
  /** How old `authTime` may be for a recent authentication. */
  reauthMaxAgeSeconds: number;
  /** The issuer of `otpauth://` URIs. */
  totpIssuer: string;
  /** The WebAuthn ceremonies of passkeys. */
  ceremonies: PasskeyCeremonies;
}
