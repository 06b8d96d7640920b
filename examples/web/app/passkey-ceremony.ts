// The passkey ceremonies of the pages (sign-in, its second step, the re-authentication dialog, the
// enrolment, the passkeys page): a browser-side failure said in words, a one-button form for each use.
import { isTenantAuthClientError } from 'tenant-auth-client';
import { formAlert, h, onSubmit, showError } from './dom.js';

/**
 * Runs a passkey ceremony: a browser-side failure (the prompt closed, no authenticator) is said in words,
 * the server's problems go to the form as usual.
 */
export async function ceremony<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (isTenantAuthClientError(err)) throw err;
    throw new Error('The passkey prompt was closed or the device could not make a passkey.', { cause: err });
  }
}

/** Shows an error on `form`: the server's problem, or the words of a browser-side failure. */
export function showPasskeyError(form: HTMLFormElement, err: unknown): void {
  if (isTenantAuthClientError(err) || !(err instanceof Error)) {
    showError(form, err);
    return;
  }
  const alert = form.querySelector<HTMLElement>('.form-alert');
  if (!alert) return;
  alert.textContent = err.message;
  alert.hidden = false;
  alert.focus();
}

/**
 * Runs `action`; a browser-side failure is shown on `form` in words (the server's problems are thrown
 * on). Resolves `true` when the action succeeded.
 */
export async function inWords(form: HTMLFormElement, action: () => Promise<unknown>): Promise<boolean> {
  try {
    await action();
    return true;
  } catch (err) {
    if (isTenantAuthClientError(err) || !(err instanceof Error)) throw err;
    showPasskeyError(form, err);
    return false;
  }
}

/**
 * A form of one "Use a passkey" button (the second step of signing in, the re-authentication dialog,
 * the forced enrolment): `prove` runs the passkey ceremony, `done` what follows once it succeeded. A
 * browser-side failure and the server's problems show in the form's own alert. `wrap` lets the caller
 * handle some problems itself (an expired sign-in step).
 */
export function passkeyButton(options: {
  label: string;
  prove: () => Promise<unknown>;
  done: () => Promise<void>;
  primary?: boolean;
  wrap?: (run: () => Promise<void>) => Promise<void>;
}): HTMLFormElement {
  const wrap = options.wrap ?? ((run) => run());
  const form: HTMLFormElement = onSubmit(
    h(
      'form',
      { class: 'passkey-option', 'aria-label': options.label },
      formAlert(),
      h('button', { type: 'submit', class: options.primary ? undefined : 'secondary' }, options.label),
    ),
    () =>
      wrap(async () => {
        if (await inWords(form, () => ceremony(options.prove))) await options.done();
      }),
  );
  return form;
}
