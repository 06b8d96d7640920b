import type { SessionState } from './tokens.js';

/**
 * Why a session ended on this side (`signed_out` of {@link SessionChange}): a logout, the account deleted,
 * this session revoked by the user (from its session list), or the refresh token's lifetime over.
 *
 * @example
 * const reason: SignOutReason = 'logout';
 */
export type SignOutReason = 'logout' | 'account_deleted' | 'session_revoked' | 'expired';

/**
 * A change of the session, for a UI to react to (`onSessionChange`). `source` tells whether this client
 * made it (`local`) or another tab sharing the session did (`other_tab`).
 *
 * - `signed_in`: login, registration, accepting an invitation, or a session restored.
 * - `refreshed`: new tokens (silently, before the access token expired, or after a `401`).
 * - `signed_out`: the session ended on purpose; see {@link SignOutReason}.
 * - `revoked`: the server refused to refresh a session the client held as valid: it was revoked
 *   elsewhere (a logout on another device, a password reset, an administrator) or after a refresh token
 *   was replayed. The user must sign in again.
 *
 * @example
 * client.onSessionChange((change) => {
 *   if (change.type === 'revoked') showSignIn('Your session has ended. Please sign in again.');
 * });
 */
export type SessionChange =
  | { type: 'signed_in'; state: SessionState; source: 'local' | 'other_tab' }
  | { type: 'refreshed'; state: SessionState; source: 'local' | 'other_tab' }
  | { type: 'signed_out'; reason: SignOutReason; source: 'local' | 'other_tab' }
  | { type: 'revoked'; source: 'local' | 'other_tab' };

/** @internal The listeners of {@link SessionChange}s. */
export interface SessionListeners {
  add(listener: (change: SessionChange) => void): () => void;
  /** Tells every listener; a listener that throws does not stop the others, nor the client. */
  emit(change: SessionChange): void;
  clear(): void;
}

/** @internal An empty set of listeners (plus `first`, the one of the options, when there is one). */
export function sessionListeners(first?: (change: SessionChange) => void): SessionListeners {
  const listeners = new Set<(change: SessionChange) => void>();
  if (first) listeners.add(first);
  return {
    add(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    emit(change) {
      for (const listener of [...listeners]) {
        try {
          listener(change);
        } catch {
          // A listener's failure is its own.
        }
      }
    },
    clear: () => listeners.clear(),
  };
}
