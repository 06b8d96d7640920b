// The re-authentication dialog: a sensitive action refused with `reauthentication_required` opens it,
// the user proves who they are again (password, and a code when they have a second factor; or a passkey
// alone), and the action then runs again by itself. The client is given it once, as its
// `onReauthenticationRequired` (app.ts): one dialog at a time, whichever calls were refused.
import type { ReauthenticationPrompt } from 'tenant-auth-client';
import { client, state } from './app.js';
import { field, formAlert, h, onSubmit, uid } from './dom.js';
import { passkeyButton } from './passkey-ceremony.js';

/** The code field of a second factor: digits from an authenticator app, or a recovery code. */
export function codeField(method: 'totp' | 'recovery_code'): HTMLDivElement {
  const totp = method === 'totp';
  const element = field({
    label: totp ? 'Authentication code' : 'Recovery code',
    name: 'code',
    autocomplete: 'one-time-code',
    hint: totp
      ? 'The 6-digit code your authenticator app shows now.'
      : 'One of the recovery codes you saved. Each works once.',
  });
  const input = element.querySelector('input');
  input?.setAttribute('inputmode', totp ? 'numeric' : 'text');
  input?.setAttribute('spellcheck', 'false');
  return element;
}

/** What the dialog says it needs. */
function instructions(withCode: boolean, passkey: boolean, passwordForm: boolean): string {
  if (!passwordForm) return 'For your security, confirm it is you with your passkey to continue.';
  const code = withCode ? 'enter your password and a code from your second factor' : 'enter your password';
  return `For your security, ${code}${passkey ? ', or use a passkey,' : ''} to continue.`;
}

/**
 * Asks for the password (and a code of the user's second factor), or a passkey, in a modal `<dialog>`:
 * focus moves into it, Escape or Cancel gives up, focus returns to what opened it. Wrong answers show
 * under their field and the dialog stays open; it closes once the re-authentication succeeded. A user
 * whose only factor is a passkey gets the passkey alone (the password without a code would be refused).
 */
export const reauthenticationDialog: ReauthenticationPrompt = async (context) => {
  // A session signed in through the organisation's identity provider proves itself there again.
  if (state.session?.session.amr.includes('sso')) return providerDialog();
  const { reauthenticate } = context;
  const me = await client.getMe();
  const hasFactor = me.mfa.totp || me.mfa.recoveryCodesRemaining > 0;
  const hasPasskey = me.mfa.passkeys > 0;
  const passwordForm = hasFactor || !hasPasskey;
  let method: 'totp' | 'recovery_code' = me.mfa.totp ? 'totp' : 'recovery_code';
  const opener = document.activeElement as HTMLElement | null;
  const titleId = uid('reauth-title');
  const codeSlot = h('div', {}, hasFactor ? codeField(method) : null);
  const switchMethod = h(
    'button',
    {
      type: 'button',
      class: 'link',
      onclick: () => {
        method = method === 'totp' ? 'recovery_code' : 'totp';
        codeSlot.replaceChildren(codeField(method));
        switchMethod.textContent =
          method === 'totp' ? 'Use a recovery code instead' : 'Use your authenticator app';
        codeSlot.querySelector('input')?.focus();
      },
    },
    'Use a recovery code instead',
  );
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
  const form = h(
    'form',
    {},
    passwordForm
      ? field({ label: 'Password', name: 'password', type: 'password', autocomplete: 'current-password' })
      : null,
    codeSlot,
    me.mfa.totp && me.mfa.recoveryCodesRemaining > 0 ? h('p', {}, switchMethod) : null,
    formAlert(),
    h('div', { class: 'actions' }, cancel, passwordForm ? h('button', { type: 'submit' }, 'Confirm') : null),
  );
  let close = (_done: boolean) => {};
  // POST /auth/reauthenticate/options, then /auth/reauthenticate with the credential alone.
  const passkey = hasPasskey
    ? passkeyButton({
        label: 'Use a passkey',
        primary: !passwordForm,
        prove: () => client.passkeys.reauthenticate(),
        done: async () => close(true),
      })
    : null;
  const dialog = h(
    'dialog',
    { class: 'dialog', 'aria-labelledby': titleId, id: 'reauthentication' },
    h('h2', { id: titleId }, 'Confirm it is you'),
    h('p', {}, instructions(hasFactor, hasPasskey, passwordForm)),
    passkey,
    passkey && passwordForm ? h('p', { class: 'muted' }, 'Or with your password and a code:') : null,
    form,
  );
  return new Promise<boolean>((resolve) => {
    close = (done: boolean) => {
      dialog.close();
      dialog.remove();
      opener?.focus();
      resolve(done);
    };
    cancel.addEventListener('click', () => close(false));
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      close(false);
    });
    onSubmit(form, async ({ password = '', code = '' }) => {
      await reauthenticate(hasFactor ? { password, method, code: code.trim() } : { password });
      close(true);
    });
    document.body.append(dialog);
    dialog.showModal();
    // The first field; for a passkey-only user, the passkey's button.
    (dialog.querySelector('input') ?? dialog.querySelector<HTMLElement>('button[type="submit"]'))?.focus();
  });
};

/**
 * The dialog of a single sign-on session: the password cannot stand in for the provider (`sso_required`
 * for a user the organisation holds to SSO), so **Continue** asks the server for a fresh login at the
 * provider (`POST /auth/sso/reauthenticate`) and goes there; the provider's answer comes back through
 * the server to this very page (`returnTo`), where the user does what they were doing again. It never
 * resolves `true`: the page is left. Cancel resolves `false`.
 */
function providerDialog(): Promise<boolean> {
  const opener = document.activeElement as HTMLElement | null;
  const titleId = uid('reauth-title');
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
  const form = h(
    'form',
    {},
    formAlert(),
    h('div', { class: 'actions' }, cancel, h('button', { type: 'submit' }, 'Continue')),
  );
  const dialog = h(
    'dialog',
    { class: 'dialog', 'aria-labelledby': titleId, id: 'reauthentication' },
    h('h2', { id: titleId }, 'Confirm it is you'),
    h(
      'p',
      {},
      "For your security, sign in again at your organisation's identity provider. You will come back to this page.",
    ),
    form,
  );
  return new Promise<boolean>((resolve) => {
    const close = () => {
      dialog.close();
      dialog.remove();
      opener?.focus();
      resolve(false);
    };
    cancel.addEventListener('click', close);
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      close();
    });
    onSubmit(form, async () => {
      const { url } = await client.sso.reauthenticate({ returnTo: window.location.href });
      window.location.assign(url);
    });
    document.body.append(dialog);
    dialog.showModal();
    dialog.querySelector<HTMLElement>('button[type="submit"]')?.focus();
  });
}
