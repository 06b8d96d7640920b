import type { ResolvedInstrumentation } from '../ports/instrumentation.js';
import type { Logger } from '../ports/logger.js';
import type { CompleteTenantAuthStores } from '../ports/tenant-auth-stores.js';
import type { Clock, RandomBytes } from '../vocabulary/clock.js';
import type { ApiKeyRevocations } from './api-key-revocations.js';
import type { Background } from './background.js';
import type { EventLog } from './events/event-log.js';
import type { MailOutbox } from './mail/mail-outbox.js';
import type { PasswordHasher } from './passwords/hasher.js';
import type { PasswordPolicy } from './passwords/policy.js';
import type { RequestLimits } from './rate-limit/request-limits.js';
import type { RequireRecent } from './recent-auth.js';
import type { DataSealer } from './sealing/data-key.js';
import type { FactorLock } from './second-factor/factor-lock.js';
import type { SecondFactorGate } from './second-factor/second-factor-gate.js';
import type { ActiveSessionCache } from './sessions/active-session-cache.js';
import type { SessionTokens } from './sessions/session-tokens.js';
import type { OneTimeTokens } from './tokens/one-time-tokens.js';
import type { TokenService } from './tokens/token-service.js';
import type { PasskeyCeremonies } from './webauthn/passkey-ceremonies.js';

/**
 * @internal What the use cases share, each built once by `createTenantAuth` (facade/compose-services.ts):
 * a use case takes these and the options of its own, and builds nothing another one builds too.
 */
export interface Services {
  stores: CompleteTenantAuthStores;
  clock: Clock;
  random: RandomBytes;
  logger: Logger;
  /** The instrumentation hooks, with no-op defaults. */
  instrumentation: ResolvedInstrumentation;
  events: EventLog;
  /** Signs and verifies access and refresh tokens. */
  tokens: TokenService;
  hasher: PasswordHasher;
  /** The hash an unknown email's login compares against (made at start-up). */
  dummyHash: () => Promise<string>;
  policy: PasswordPolicy;
  sessionTokens: SessionTokens;
  cache: ActiveSessionCache;
  /** Counts the changes that end API keys: the verified-key cache trusts none made before the last one. */
  apiKeyRevocations: ApiKeyRevocations;
  oneTimeTokens: OneTimeTokens;
  /** `undefined` when the `mail` option is not set. */
  mail: MailOutbox | undefined;
  /** `undefined` when rate limiting is off. */
  limits: RequestLimits | undefined;
  background: Background;
  invitationTtlSeconds: number;
  /** Seals TOTP secrets (and the outbox's payloads). */
  sealer: DataSealer;
  /** The second-factor lock: wrong TOTP and recovery codes counted per account, in the database. */
  factorLock: FactorLock;
  /** What every first factor passes through before a session is made. */
  secondFactor: SecondFactorGate;
  /** How old `authTime` may be for a recent authentication. */
  reauthMaxAgeSeconds: number;
  /** The recent-authentication check of every operation marked recent (MFA, passkeys, SSO, API keys). */
  requireRecent: RequireRecent;
  /** The issuer of `otpauth://` URIs. */
  totpIssuer: string;
  /** The WebAuthn ceremonies of passkeys. */
  ceremonies: PasskeyCeremonies;
}
