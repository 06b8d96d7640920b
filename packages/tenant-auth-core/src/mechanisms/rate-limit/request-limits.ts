import { createHash, createHmac } from 'node:crypto';
import type { Logger } from '../../ports/logger.js';
import type { RateLimitStore } from '../../ports/rate-limit-store.js';
import type { Clock } from '../../vocabulary/clock.js';
import type { ClientBudget, RateLimitResult } from '../../vocabulary/rate-limit-result.js';
import type { RequestContext } from '../../vocabulary/records.js';
import { clientKeys } from './client-ip-key.js';
import { createLoginThrottle, type LoginThrottle } from './login-throttle.js';
import { type Consumed, createRateLimiter, rateLimited, type StoreErrorPolicy } from './rate-limiter.js';

/** @internal The resolved rate-limit settings (see `RateLimitOptions`). */
export interface RequestLimitSettings {
  store: RateLimitStore;
  windowSeconds: number;
  strict: number;
  general: number;
  network: number;
  account: number;
  accountCeiling: number;
  mfaFailuresPerAccount: number;
  mailbox: number;
  accountKeySecret: Uint8Array | undefined;
}

/** @internal The window of the `mailbox` budget: emails per address per hour. */
export const MAILBOX_WINDOW_SECONDS = 3600;

/** @internal Every budget of one `TenantAuth`. */
export interface RequestLimits {
  /**
   * Counts a request of a client against a per-client budget; throws `rate_limited` (carrying the
   * refusing budget) when over it. A `strict` request counts against its network's aggregate budget too.
   */
  consume(budget: ClientBudget, context: RequestContext, apiKeyId?: string): Promise<RateLimitResult>;
  readonly loginThrottle: LoginThrottle;
  /**
   * Wrong second-factor answers per account (keyed by the user's id): `mfaFailuresPerAccount` from one
   * client network (a /24 or a /48), ten times that from every network together. Its own budget (`mfa`),
   * never the password throttle's; a right answer gives its attempt back, as a right password does.
   */
  readonly mfaThrottle: LoginThrottle;
  /**
   * Counts one email to an address (recovery, verification, invitation), so nobody can flood a mailbox
   * through us: `mailbox` an hour to one address from one client network, four times that from every
   * network together (so one network asking for someone's reset links cannot use up the owner's). Resolves `false` when the address had its share this hour. Fails open when the store
   * is down: the per-client budgets still hold.
   */
  mailbox(normalisedEmail: string, context: RequestContext): Promise<RateLimitResult>;
}

/** A budget's answer without the store key it was counted under (written out: this runs on every request). */
function publicResult(consumed: Consumed): RateLimitResult {
  const { budget, allowed, limit, remaining, resetSeconds, retryAfterSeconds } = consumed;
  return { budget, allowed, limit, remaining, resetSeconds, retryAfterSeconds };
}

/** @internal Builds the budgets. Each has its own key partitions in the store, so none can crowd out another. */
export function createRequestLimits(
  settings: RequestLimitSettings,
  clock: Clock,
  logger: Logger,
): RequestLimits {
  const common = { store: settings.store, windowMs: settings.windowSeconds * 1000, clock, logger };
  // Budgets that guard credentials (and the hashing behind them) fail closed when their store is down;
  // the general one stays open: those routes are protected by authentication, not by the limit.
  const budget = (
    name: 'strict' | 'general' | 'network' | 'account' | 'mfa',
    limit: number,
    onStoreError: StoreErrorPolicy,
    countRefused: boolean,
  ) =>
    createRateLimiter({
      ...common,
      budget: name,
      limit,
      onStoreError,
      countRefused,
      overflow: name === 'account' || name === 'mfa' ? 'allow' : 'shared',
    });
  const strict = budget('strict', settings.strict, 'fail-closed', true);
  const general = budget('general', settings.general, 'fail-open', true);
  const network = budget('network', settings.network, 'fail-closed', true);
  const perClient = budget('account', settings.account, 'fail-closed', false);
  const ceiling = budget('account', settings.accountCeiling, 'fail-closed', false);
  const mfaPerNetwork = budget('mfa', settings.mfaFailuresPerAccount, 'fail-closed', false);
  const mfaCeiling = budget('mfa', settings.mfaFailuresPerAccount * 10, 'fail-closed', false);
  const mailboxBudget = (limit: number) =>
    createRateLimiter({
      ...common,
      windowMs: MAILBOX_WINDOW_SECONDS * 1000,
      budget: 'mailbox',
      limit,
      onStoreError: 'fail-open',
      countRefused: false,
      overflow: 'allow',
    });
  const mailboxPerClient = mailboxBudget(settings.mailbox);
  const mailboxCeiling = mailboxBudget(settings.mailbox * 4);
  const mailboxKey = (email: string) =>
    (settings.accountKeySecret === undefined
      ? createHash('sha256')
      : createHmac('sha256', settings.accountKeySecret)
    )
      .update(email)
      .digest('hex')
      .slice(0, 32);
  return {
    async consume(name, context, apiKeyId) {
      // A request authenticated by an API key has the general budget of its own: keyed by the key, so
      // one back-end's keys do not share (or exhaust) the budget of the address they call from.
      if (apiKeyId !== undefined && name === 'general') {
        const result = await general.consume([`key:${apiKeyId}`]);
        if (!result.allowed) throw rateLimited(result, 'Too many requests with this API key. Retry later.');
        return publicResult(result);
      }
      const keys = clientKeys(context.ipAddress ?? '');
      if (name === 'strict') {
        const aggregate = await network.consume([keys.network]);
        if (!aggregate.allowed)
          throw rateLimited(aggregate, 'Too many requests from this network. Retry later.');
      }
      const result = await (name === 'strict' ? strict : general).consume(keys.ladder);
      if (!result.allowed) throw rateLimited(result, 'Too many requests. Retry later.');
      return publicResult(result);
    },
    loginThrottle: createLoginThrottle(perClient, ceiling, settings.accountKeySecret),
    mfaThrottle: createLoginThrottle(
      mfaPerNetwork,
      mfaCeiling,
      settings.accountKeySecret,
      'Too many wrong codes for this account; try again later.',
    ),
    async mailbox(email, context) {
      const address = mailboxKey(email);
      const { network } = clientKeys(context.ipAddress ?? '');
      const mine = await mailboxPerClient.consume([`${address}|${network}`]);
      if (!mine.allowed) {
        const { key: _key, ...state } = mine;
        return state;
      }
      const all = await mailboxCeiling.consume([address]);
      if (!all.allowed) await mailboxPerClient.refund(mine.key);
      const { key: _key, ...state } = all.allowed ? mine : all;
      return state;
    },
  };
}
