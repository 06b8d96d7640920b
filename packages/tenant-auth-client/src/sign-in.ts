import { MFA_METHODS, type MfaMethod } from './contract.generated.js';
import { isTenantAuthClientError, TenantAuthClientError } from './errors.js';
import type { SessionState } from './tokens.js';

/**
 * A sign-in that is over: the session, as {@link SessionState} (never a token), marked `signed_in`.
 *
 * @example
 * const step = await client.loginStep({ email, password });
 * if (step.type === 'signed_in') greet(step.user.email);
 */
export type SignedIn = SessionState & { type: 'signed_in' };

/**
 * The password was right and the user has a second factor: answer with one of `methods`
 * (`client.verifyMfa`) before `expiresAt`. No session exists yet.
 *
 * @example
 * const step = await client.loginStep({ email, password });
 * if (step.type === 'mfa_required') {
 *   await client.verifyMfa({ mfaToken: step.mfaToken, method: 'totp', code: askForCode() });
 * }
 */
export interface MfaChallenge {
  /** The step: answer a second factor. */
  type: 'mfa_required';
  /** Opaque, single use: the token that answers the challenge. Keep it in memory only. */
  mfaToken: string;
  /** The second factors the user can answer with (only those this client knows). */
  methods: MfaMethod[];
  /** Seconds the `mfaToken` stays valid, as the server said. */
  expiresIn: number;
  /** When the `mfaToken` expires, in milliseconds since the epoch on the client's clock. */
  expiresAt: number;
}

/**
 * The password was right, the tenant requires a second factor and the user has none: enrol one with the
 * `mfaToken` (`client.setupTotp({ mfaToken })`, then `client.confirmTotp({ code, mfaToken })`), which
 * signs in. No session exists yet.
 *
 * @example
 * const step = await client.loginStep({ email, password });
 * if (step.type === 'mfa_setup_required') {
 *   const { otpauthUri } = await client.setupTotp({ mfaToken: step.mfaToken });
 *   showQrCode(otpauthUri);
 * }
 */
export interface MfaSetupChallenge {
  /** The step: enrol a second factor. */
  type: 'mfa_setup_required';
  /** Opaque, single use: the token that allows the enrolment. Keep it in memory only. */
  mfaToken: string;
  /** Seconds the `mfaToken` stays valid, as the server said. */
  expiresIn: number;
  /** When the `mfaToken` expires, in milliseconds since the epoch on the client's clock. */
  expiresAt: number;
}

/**
 * The result of `client.login` and `client.acceptInvitation`: the session (as in 1.1). When the server
 * asks for a second factor first, those methods throw a `TenantAuthClientError` with code `mfa_required`
 * or `mfa_setup_required` instead; a client that handles second factors calls `client.loginStep` /
 * `client.acceptInvitationStep`, which answer a {@link SignInStep}.
 *
 * @example
 * try {
 *   const session: SignInResult = await client.login({ email, password });
 *   showHome(session.user);
 * } catch (err) {
 *   if (isTenantAuthClientError(err, 'mfa_required')) showSecondFactorPage();
 *   else throw err;
 * }
 */
export type SignInResult = SessionState;

/**
 * The result of `client.loginStep` and `client.acceptInvitationStep`: a session, or the second-factor
 * step that comes before it. An expected step is a result to switch on, never an exception; failures (a
 * wrong password, a rate limit) still throw a `TenantAuthClientError`.
 *
 * @example
 * const step: SignInStep = await client.loginStep({ email, password });
 * switch (step.type) {
 *   case 'signed_in': return showHome(step.user);
 *   case 'mfa_required': return showSecondFactor(step.mfaToken, step.methods);
 *   case 'mfa_setup_required': return showEnrolment(step.mfaToken);
 * }
 */
export type SignInStep = SignedIn | MfaChallenge | MfaSetupChallenge;

const isToken = (t: unknown): t is string => typeof t === 'string' && t !== '' && t.length <= 8192;
const isLifetime = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n > 0;
const isKnownMethod = (m: unknown): m is MfaMethod =>
  typeof m === 'string' && (MFA_METHODS as readonly string[]).includes(m);

/**
 * @internal The challenge of a `401 mfa_required` / `mfa_setup_required` error, received at `now`;
 * `null` for any other error. A challenge without the members the contract promises is no answer the
 * client can act on: an `http_error`.
 */
export function challengeOf(err: unknown, now: number): MfaChallenge | MfaSetupChallenge | null {
  const isChallenge =
    isTenantAuthClientError(err, 'mfa_required') || isTenantAuthClientError(err, 'mfa_setup_required');
  if (!isChallenge) return null;
  const { mfaToken, expiresIn, methods } = err.problem ?? {};
  const malformed = () =>
    new TenantAuthClientError('http_error', `HTTP ${err.status}: a ${err.code} without its members`, {
      status: err.status,
      cause: err,
    });
  if (!isToken(mfaToken) || !isLifetime(expiresIn)) throw malformed();
  const expiresAt = now + expiresIn * 1000;
  if (err.code === 'mfa_setup_required')
    return { type: 'mfa_setup_required', mfaToken, expiresIn, expiresAt };
  if (!Array.isArray(methods)) throw malformed();
  const known = methods.filter(isKnownMethod);
  // A later server may offer a factor this client does not know: one it knows must remain.
  if (known.length === 0) throw malformed();
  return { type: 'mfa_required', mfaToken, methods: known, expiresIn, expiresAt };
}
