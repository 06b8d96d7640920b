import type { SsoErrorCode } from '../../vocabulary/sso-error-codes.js';

/**
 * @internal A refusal of the callback, thrown inside its transaction (which then rolls back): the
 * browser's code, and the reason in words for the log (never a token, secret or address).
 */
export class Refusal {
  constructor(
    readonly code: SsoErrorCode,
    readonly detail: string,
  ) {}
}
