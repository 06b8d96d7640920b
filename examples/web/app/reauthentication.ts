// The re-authentication dialog: a sensitive action refused with `reauthentication_required` opens it,
// the user proves who they are again (password, and a code when they have a second factor), and the
// action then runs again by itself (tenant-auth-client's withReauthentication).
import type { ReauthenticationPrompt } from 'tenant-auth-client';
import { client } from './app.js';
import { field, formAlert, h, onSubmit, uid } from './dom.js';

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

/**
 * Asks for the password (and a code of the user's second factor) in a modal `<dialog>`: focus moves
 * into it, Escape or Cancel gives up, focus returns to what opened it. Wrong answers show under their
 * field and the dialog stays open; it closes once the re-authentication succeeded.
 */
export const reauthenticationDialog: ReauthenticationPrompt = async ({ reauthenticate }) => {
  const me = await client.getMe();
  const hasFactor = me.mfa.totp || me.mfa.recoveryCodesRemaining > 0;
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
    field({ label: 'Password', name: 'password', type: 'password', autocomplete: 'current-password' }),
    codeSlot,
    me.mfa.totp && me.mfa.recoveryCodesRemaining > 0 ? h('p', {}, switchMethod) : null,
    formAlert(),
    h('div', { class: 'actions' }, cancel, h('button', { type: 'submit' }, 'Confirm')),
  );
  const dialog = h(
    'dialog',
    { class: 'dialog', 'aria-labelledby': titleId, id: 'reauthentication' },
    h('h2', { id: titleId }, 'Confirm it is you'),
    h(
      'p',
      {},
      hasFactor
        ? 'For your security, enter your password and a code from your second factor to continue.'
        : 'For your security, enter your password to continue.',
    ),
    form,
  );
  return new Promise<boolean>((resolve) => {
    const close = (done: boolean) => {
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
    form.querySelector('input')?.focus();
  });
};

/** Runs a sensitive action, through the re-authentication dialog when the server asks for it. */
export function withReauthentication<T>(action: () => Promise<T>): Promise<T> {
  return client.withReauthentication(action, reauthenticationDialog);
}
