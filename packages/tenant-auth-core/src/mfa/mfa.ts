import type { Services } from '../services.js';
import { createTotpEnrolment } from './enrolment.js';
import { createFactorManagement } from './factor-management.js';
import { createMfaPasskeyOptions } from './passkey-answer.js';
import { createRecentAuth } from './recent-auth.js';
import { createChallengeFailures, createMfaVerification } from './verification.js';

/**
 * @internal The second factor's use cases (issue 29): verifying a login's challenge, enrolling and
 * removing TOTP, recovery codes, recent authentication, the tenant's policy and the caller's account.
 */
export function createMfa(services: Services) {
  const { requireRecent, reauthenticate, reauthenticationOptions } = createRecentAuth(services);
  const { setupTotp, confirmTotp } = createTotpEnrolment(
    services,
    (claims) => requireRecent(claims),
    createChallengeFailures(services),
  );
  return {
    verifyMfa: createMfaVerification(services),
    setupTotp,
    confirmTotp,
    reauthenticate,
    reauthenticationOptions,
    mfaPasskeyOptions: createMfaPasskeyOptions(services),
    async requireRecentAuth(
      claims: Parameters<typeof requireRecent>[0],
      options: { maxAgeSeconds?: number } = {},
    ): Promise<void> {
      await requireRecent(claims, options?.maxAgeSeconds);
    },
    ...createFactorManagement(services, (claims) => requireRecent(claims)),
  };
}
