import type { ReauthenticateRequest } from './contract.generated.js';
import type { TenantAuthClientError } from './errors.js';
import type { SessionState } from './tokens.js';

/**
 * What a {@link ReauthenticationPrompt} gets: the refusal, and the way to answer it. The prompt calls
 * `reauthenticate` as often as the user tries (a wrong password throws a `validation_failed` it can
 * show), and resolves `true` once one succeeded, `false` when the user gave up.
 *
 * @example
 * const prompt: ReauthenticationPrompt = async ({ reauthenticate }) => {
 *   const password = await askPassword();
 *   if (password === null) return false;
 *   await reauthenticate({ password });
 *   return true;
 * };
 */
export interface ReauthenticationContext {
  /** The `reauthentication_required` refusal of the call. */
  error: TenantAuthClientError;
  /** `client.reauthenticate`: throws on a wrong answer (`validation_failed`), so the prompt can say it. */
  reauthenticate(body: ReauthenticateRequest): Promise<SessionState>;
}

/**
 * Asks the user to prove who they are again (a dialog): the client's `onReauthenticationRequired`, or
 * the prompt of `client.withReauthentication`.
 *
 * @example
 * await client.withReauthentication(() => client.disableTotp(), (context) => dialog.open(context));
 */
export type ReauthenticationPrompt = (context: ReauthenticationContext) => Promise<boolean>;

/**
 * @internal One re-authentication prompt at a time for a client. Calls refused with
 * `reauthentication_required` while a prompt is open wait for that prompt instead of opening their own;
 * a call refused after a re-authentication that succeeded since it was sent runs again without asking.
 */
export interface ReauthenticationGate {
  /** Counts the re-authentications that succeeded: read it before sending a call, pass it to `ask`. */
  readonly generation: number;
  /**
   * Whether the user re-authenticated for the refusal `error` of a call sent at `sentAt` (a `generation`):
   * `true` at once when one succeeded since; otherwise the open prompt's answer, or `prompt`'s.
   */
  ask(error: TenantAuthClientError, prompt: ReauthenticationPrompt, sentAt: number): Promise<boolean>;
  /** Whether `error` already went to a prompt (so no other prompt asks for it again). */
  asked(error: unknown): boolean;
}

/** @internal The gate of a client; `reauthenticate` is the client's `reauthenticate`. */
export function reauthenticationGate(
  reauthenticate: (body: ReauthenticateRequest) => Promise<SessionState>,
): ReauthenticationGate {
  let generation = 0;
  let open: Promise<boolean> | undefined;
  const seen = new WeakSet<object>();

  return {
    get generation() {
      return generation;
    },
    async ask(error, prompt, sentAt) {
      seen.add(error);
      if (generation !== sentAt) return true;
      if (!open) {
        open = (async () => {
          try {
            const done = await prompt({ error, reauthenticate });
            if (done) generation += 1;
            return done;
          } finally {
            open = undefined;
          }
        })();
      }
      return open;
    },
    asked: (error) => typeof error === 'object' && error !== null && seen.has(error),
  };
}
