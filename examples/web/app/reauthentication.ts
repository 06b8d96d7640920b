// The re-authentication dialog: a sensitive action refused with `reauthentication_required` opens it,
// the user proves who they are again (password, and a code when they have a second factor; or a passkey
// alone), and the action then runs again by itself (tenant-auth-client's withReauthentication).
import type { ReauthenticationPrompt } from 'tenant-auth-client';
import { client } from './app.js';
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
export const reauthenticationDialog: ReauthenticationPrompt = async ({ reauthenticate }) => {
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

/** Runs a sensitive action, through the re-authentication dialog when the server asks for it. */
export function withReauthentication<T>(action: () => Promise<T>): Promise<T> {
  return client.withReauthentication(action, reauthenticationDialog);
}
