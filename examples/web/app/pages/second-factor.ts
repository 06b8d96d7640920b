// The second step of signing in: a code of the user's authenticator app, a recovery code or a passkey
// (after the password said `mfa_required`), and the enrolment an organisation that requires two-step
// verification forces (an authenticator app or a passkey, after the password or an invitation said
// `mfa_setup_required`). The `mfaToken` of the step
// stays in this module's memory: never in the address, storage or the page.
import {
  isTenantAuthClientError,
  type MfaChallenge,
  type MfaSetupChallenge,
  type SignInStep,
} from 'tenant-auth-client';
import { addRoute, client, flashNext, heading, navigate, state } from '../app.js';
import { formAlert, h, onSubmit } from '../dom.js';
import { passkeyButton } from '../passkey-ceremony.js';
import { codeField } from '../reauthentication.js';
import { recoveryCodesPanel, totpSetup } from '../totp-enrolment.js';

/** The step under way, and where to go once signed in. */
let pending: { challenge: MfaChallenge | MfaSetupChallenge; next: string; welcome?: string } | null = null;

/**
 * Goes on from a sign-in result: to `next` when signed in, else to the page of its second step.
 * `welcome` is the message shown once the user is in.
 */
export async function continueSignIn(result: SignInStep, next: string, welcome?: string): Promise<void> {
  if (result.type === 'signed_in') {
    pending = null;
    if (welcome) flashNext(welcome);
    await navigate(next, { replace: true });
    return;
  }
  pending = { challenge: result, next, ...(welcome ? { welcome } : {}) };
  await navigate(result.type === 'mfa_required' ? '/sign-in/verify' : '/sign-in/set-up', { replace: true });
}

/** The step of `type`, if one is under way and its token has not expired. */
function current<T extends SignInStep['type']>(type: T) {
  if (!pending || pending.challenge.type !== type || Date.now() >= pending.challenge.expiresAt) return null;
  return pending as { challenge: Extract<SignInStep, { type: T }>; next: string; welcome?: string };
}

const card = (...children: (Node | null)[]) => h('section', { class: 'card narrow' }, ...children);

/** The page of a step that is not (or no longer) under way: back to the password. */
function expired(main: HTMLElement, title: string): void {
  pending = null;
  main.append(
    card(
      heading(title),
      h(
        'p',
        { class: 'notice error', role: 'alert' },
        'This sign-in has expired or was already used. Please sign in again.',
      ),
      h('p', {}, h('a', { href: '/sign-in' }, 'Sign in')),
    ),
  );
}

/**
 * Runs an answer to the step; when the server says its `mfaToken` is over (expired, used, or five wrong
 * answers: `invalid_token`), the step is replaced by the way back to the password instead of a form
 * that can no longer succeed.
 */
async function answering(main: HTMLElement, title: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (!isTenantAuthClientError(err, 'invalid_token')) throw err;
    main.replaceChildren();
    expired(main, title);
    main.querySelector<HTMLElement>('h1')?.focus();
  }
}

/** Once in: the message, then the page that asked for the sign-in. */
async function finish(next: string, welcome: string | undefined): Promise<void> {
  pending = null;
  if (welcome) flashNext(welcome);
  await navigate(next, { replace: true });
}

addRoute('/sign-in/verify', {
  title: 'Two-step verification',
  access: 'guest',
  render(main) {
    const step = current('mfa_required');
    if (!step) return expired(main, 'Two-step verification');
    const { challenge } = step;
    const title = 'Two-step verification';
    const withCode = challenge.methods.includes('totp') || challenge.methods.includes('recovery_code');
    let method: 'totp' | 'recovery_code' = challenge.methods.includes('totp') ? 'totp' : 'recovery_code';
    const slot = h('div', {}, codeField(method));
    const other = h(
      'button',
      {
        type: 'button',
        class: 'link',
        onclick: () => {
          method = method === 'totp' ? 'recovery_code' : 'totp';
          slot.replaceChildren(codeField(method));
          other.textContent =
            method === 'totp' ? 'Use a recovery code instead' : 'Use your authenticator app';
          slot.querySelector('input')?.focus();
        },
      },
      'Use a recovery code instead',
    );
    const form = onSubmit(
      h(
        'form',
        { 'aria-labelledby': 'verify-title' },
        slot,
        formAlert(),
        h('button', { type: 'submit' }, 'Verify'),
      ),
      ({ code = '' }) =>
        answering(main, title, async () => {
          await client.verifyMfa({ mfaToken: challenge.mfaToken, method, code: code.trim() });
          await finish(step.next, step.welcome);
        }),
    );
    // A passkey answers alone (POST /auth/mfa/passkey/options, then /auth/mfa/verify): the main way when
    // the user has no code to type.
    const passkey = challenge.methods.includes('passkey')
      ? passkeyButton({
          label: 'Use a passkey',
          primary: !withCode,
          prove: () => client.passkeys.verifyMfa(challenge.mfaToken),
          done: () => finish(step.next, step.welcome),
          wrap: (run) => answering(main, title, run),
        })
      : null;
    const h1 = heading(title);
    h1.id = 'verify-title';
    const both = challenge.methods.includes('totp') && challenge.methods.includes('recovery_code');
    main.append(
      card(
        h1,
        h(
          'p',
          { class: 'lead' },
          withCode
            ? 'Your password was right. Now confirm it is you with your second factor.'
            : 'Your password was right. Now confirm it is you with your passkey.',
        ),
        withCode ? form : null,
        h(
          'div',
          { class: 'links', id: 'second-factor-methods' },
          both ? other : null,
          passkey,
          h('a', { href: '/sign-in' }, 'Start again'),
        ),
      ),
    );
  },
});

addRoute('/sign-in/set-up', {
  title: 'Set up two-step verification',
  access: 'guest',
  async render(main) {
    const step = current('mfa_setup_required');
    if (!step) return expired(main, 'Set up two-step verification');
    const { mfaToken } = step.challenge;
    const title = 'Set up two-step verification';
    const body = h('div', {});
    let passkeyCodes: string[] | null = null;
    // Or a passkey (POST /auth/passkeys with the mfaToken): it signs in and answers the recovery codes.
    const passkey = passkeyButton({
      label: 'Use a passkey instead',
      prove: async () => {
        const { recoveryCodes } = await client.passkeys.register({ mfaToken });
        passkeyCodes = recoveryCodes;
      },
      done: async () => {
        if (passkeyCodes === null) return finish(step.next, step.welcome);
        other.remove();
        body.replaceChildren(recoveryCodesPanel(passkeyCodes, () => void finish(step.next, step.welcome)));
      },
      wrap: (run) => answering(main, title, run),
    });
    const other = h(
      'section',
      { 'aria-labelledby': 'enrol-passkey-title', id: 'second-factor-methods' },
      h('h3', { id: 'enrol-passkey-title' }, 'Or use a passkey'),
      h('p', {}, 'Your fingerprint, face or device PIN instead of an app.'),
      passkey,
    );
    main.append(
      card(
        heading(title),
        h(
          'p',
          { class: 'lead' },
          'Your organisation requires two-step verification. Set up an authenticator app or a passkey to continue.',
        ),
        body,
        other,
      ),
    );
    await answering(main, title, async () => {
      const setup = await client.setupTotp({ mfaToken });
      body.replaceChildren(
        totpSetup(setup, (code) =>
          answering(main, title, async () => {
            const { recoveryCodes } = await client.confirmTotp({ mfaToken, code });
            if (!state.session || recoveryCodes === null) return finish(step.next, step.welcome);
            other.remove();
            body.replaceChildren(
              recoveryCodesPanel(recoveryCodes, () => void finish(step.next, step.welcome)),
            );
          }),
        ),
      );
    });
  },
});
