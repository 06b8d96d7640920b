import { EXPECTED_ANSWERS } from './answers.js';
import { OPERATIONS, type OperationId } from './contract.generated.js';
import { errorOf, isTenantAuthClientError } from './errors.js';
import type { ReauthenticationGate, ReauthenticationPrompt } from './reauthentication.js';
import type { Session, StaleMark } from './session.js';
import type { Answer, CallInput, CallOptions, Transport } from './transport.js';

/**
 * @internal Requests with the session's credentials: an operation of the contract, or the application's
 * own `fetch`. A `401 invalid_token` to a request that took the access token leads to one refresh
 * (shared with every other request that meets one) and one retry. With an `onReauthenticationRequired`
 * prompt, a `403 reauthentication_required` leads to that prompt (one at a time: concurrent refusals share
 * it) and, once the user re-authenticated, one retry.
 */
export interface Requests {
  /**
   * Calls an operation; `retry: false` gives up at the first `401`, `prompt: false` at the first
   * `reauthentication_required`.
   */
  exchange<K extends OperationId>(
    operation: K,
    input: CallInput,
    options?: ExchangeOptions,
  ): Promise<Answer<K>>;
  /** `fetch` for the application's own routes (`requireAuth()` on the server). */
  fetch(url: string, init?: RequestInit): Promise<Response>;
}

/** @internal Options of one {@link Requests.exchange}. */
export type ExchangeOptions = Omit<CallOptions, 'credentials'> & { retry?: boolean; prompt?: boolean };

/** @internal What a client does with a `reauthentication_required`: nothing, or ask its prompt. */
export interface RequestReauthentication {
  gate: ReauthenticationGate;
  /** The client's `onReauthenticationRequired`. */
  prompt: ReauthenticationPrompt | undefined;
  now(): number;
}

/** @internal The requests of a client in `mode`. */
export function createRequests(
  mode: 'cookie' | 'bearer',
  transport: Transport,
  session: Session,
  reauthentication?: RequestReauthentication,
): Requests {
  /** Whether a request made with `mark` held a session that a refresh may renew. */
  const hadSession = (mark: StaleMark) => mode === 'cookie' || mark.accessToken !== undefined;

  async function exchange<K extends OperationId>(
    operation: K,
    input: CallInput,
    options: ExchangeOptions = {},
  ): Promise<Answer<K>> {
    const { retry = true, prompt = true, expect, ...rest } = options;
    const expected = EXPECTED_ANSWERS[operation];
    const callOptions = {
      ...rest,
      // The operation's own shape (answers.ts), and what this caller needs on top (a token response).
      expect: (data: unknown) => (expected?.(data) ?? true) && (expect?.(data) ?? true),
    };
    const spec = OPERATIONS[operation];
    let mark: StaleMark | undefined;
    const credentials = async () => {
      const found = await session.credentials(spec.auth);
      mark = found.mark;
      return found.headers;
    };
    const sentAt = reauthentication?.gate.generation ?? 0;
    try {
      return await transport.call(operation, input, { ...callOptions, credentials });
    } catch (error) {
      const ask = prompt ? reauthentication?.prompt : undefined;
      if (ask && reauthentication && isTenantAuthClientError(error, 'reauthentication_required')) {
        if (!(await reauthentication.gate.ask(error, ask, sentAt))) throw error;
        return exchange(operation, input, { ...rest, ...(expect ? { expect } : {}), retry, prompt: false });
      }
      const sent = mark;
      const mayRefresh =
        retry &&
        spec.auth === 'access' &&
        isTenantAuthClientError(error, 'invalid_token') &&
        sent !== undefined &&
        hadSession(sent);
      if (!mayRefresh) throw error;
      try {
        await session.refresh(sent);
      } catch (refreshError) {
        if (isTenantAuthClientError(refreshError, 'invalid_token')) throw error;
        throw refreshError;
      }
      return exchange(operation, input, { ...rest, ...(expect ? { expect } : {}), retry: false, prompt });
    }
  }

  async function fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const attempt = async () => {
      const { headers, mark } = await session.credentials('access');
      const merged = new Headers(init.headers);
      for (const [name, value] of Object.entries(headers)) merged.set(name, value);
      return { response: await transport.fetch(url, { ...init, headers: merged }), mark };
    };
    const sentAt = reauthentication?.gate.generation ?? 0;
    const first = await attempt();
    if (first.response.status === 403 && reauthentication?.prompt) {
      const refusal = await reauthenticationRefusal(first.response, reauthentication.now());
      if (!refusal) return first.response;
      const done = await reauthentication.gate.ask(refusal, reauthentication.prompt, sentAt);
      return done ? (await attempt()).response : first.response;
    }
    if (first.response.status !== 401) return first.response;
    const challenge = first.response.headers.get('www-authenticate') ?? '';
    if (!hadSession(first.mark) || (challenge !== '' && !/invalid_token|^Bearer\s*$/i.test(challenge))) {
      return first.response;
    }
    try {
      await session.refresh(first.mark);
    } catch (err) {
      if (isTenantAuthClientError(err, 'invalid_token')) return first.response;
      throw err;
    }
    return (await attempt()).response;
  }

  return { exchange, fetch };
}

/** The `reauthentication_required` problem a `403` of the application's own route carries, if it is one. */
async function reauthenticationRefusal(response: Response, now: number) {
  if (!/problem\+json/i.test(response.headers.get('content-type') ?? '')) return undefined;
  const error = errorOf(response, await response.clone().text(), now);
  return isTenantAuthClientError(error, 'reauthentication_required') ? error : undefined;
}
