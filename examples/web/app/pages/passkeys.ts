// Passkeys: the page that lists, adds and removes them, and the "Sign in with a passkey" button of the
// sign-in page. The browser and the authenticator do the WebAuthn part (the client's `passkeys`).
import { isTenantAuthClientError } from 'tenant-auth-client';
import { addRoute, announce, client, heading, render } from '../app.js';
import { confirmDialog, field, formAlert, h, onSubmit, showError, time } from '../dom.js';

/**
 * Runs a passkey ceremony: a browser-side failure (the prompt closed, no authenticator) is said in words,
 * the server's problems go to the form as usual.
 */
async function ceremony<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (isTenantAuthClientError(err)) throw err;
    throw new Error('The passkey prompt was closed or the device could not make a passkey.', { cause: err });
  }
}

/** Shows an error on `form`: the server's problem, or the words of a browser-side failure. */
function showPasskeyError(form: HTMLFormElement, err: unknown): void {
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
 * Runs `action`; when the server asks for a fresher proof (`reauthentication_required`), confirms with a
 * passkey (the user has one: removing and adding need a recent second factor) and runs it once more.
 */
async function withRecentPasskey(action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (err) {
    if (!isTenantAuthClientError(err, 'reauthentication_required')) throw err;
    await ceremony(() => client.passkeys.reauthenticate());
    await action();
  }
}

/** The "Sign in with a passkey" button of the sign-in page: `done` runs once signed in. */
export function passkeySignIn(done: () => Promise<void>): HTMLFormElement {
  const form: HTMLFormElement = onSubmit(
    h(
      'form',
      { class: 'passkey-sign-in', 'aria-label': 'Sign in with a passkey' },
      formAlert(),
      h('button', { type: 'submit', class: 'secondary' }, 'Sign in with a passkey'),
    ),
    async () => {
      await inWords(form, () => ceremony(() => client.passkeys.signIn()));
      if (await client.getSession()) await done();
    },
  );
  return form;
}

/**
 * Runs `action`; a browser-side failure is shown on `form` in words (the server's problems are thrown
 * on). Resolves `true` when the action succeeded.
 */
async function inWords(form: HTMLFormElement, action: () => Promise<unknown>): Promise<boolean> {
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

/** Makes and registers a passkey named `name`; with a passkey already, a stale sign-in is confirmed with it. */
async function addPasskey(name: string, hasPasskey: boolean): Promise<void> {
  try {
    await ceremony(() => client.passkeys.register({ name }));
  } catch (err) {
    if (!isTenantAuthClientError(err, 'reauthentication_required') || !hasPasskey) throw err;
    await ceremony(() => client.passkeys.reauthenticate());
    await ceremony(() => client.passkeys.register({ name }));
  }
  await render();
  announce(`Added ${name}.`);
}

addRoute('/passkeys', {
  title: 'Passkeys',
  access: 'user',
  async render(main) {
    const passkeys = await client.passkeys.list();
    const errors = h('form', { class: 'errors' }, formAlert());
    errors.noValidate = true;

    const rows = passkeys.map((p) =>
      h(
        'tr',
        { 'data-passkey-id': p.id },
        h('th', { scope: 'row' }, p.name),
        h('td', {}, time(p.createdAt)),
        h('td', {}, p.lastUsedAt ? time(p.lastUsedAt) : 'Never'),
        h(
          'td',
          {},
          h(
            'button',
            {
              type: 'button',
              class: 'secondary small',
              'aria-label': `Remove ${p.name}`,
              onclick: async () => {
                const ok = await confirmDialog({
                  title: `Remove ${p.name}?`,
                  body: 'You will no longer be able to sign in with this passkey.',
                  confirm: 'Remove passkey',
                });
                if (!ok) return;
                try {
                  await withRecentPasskey(() => client.passkeys.remove(p.id));
                  await render();
                  announce(`Removed ${p.name}.`);
                } catch (err) {
                  showPasskeyError(errors, err);
                }
              },
            },
            'Remove',
          ),
        ),
      ),
    );

    const add: HTMLFormElement = onSubmit(
      h(
        'form',
        { 'aria-labelledby': 'add-passkey-title' },
        h('h2', { id: 'add-passkey-title' }, 'Add a passkey'),
        field({ label: 'Name', name: 'name', hint: 'For example: Work laptop, Phone.', value: 'Passkey' }),
        formAlert(),
        h('button', { type: 'submit' }, 'Add a passkey'),
      ),
      async (values) => {
        await inWords(add, () => addPasskey(values.name?.trim() ?? '', passkeys.length > 0));
      },
    );

    main.append(
      h(
        'div',
        { class: 'page-head' },
        h('p', { class: 'muted' }, h('a', { href: '/security' }, 'Security'), ' › Passkeys'),
        heading('Passkeys'),
        h(
          'p',
          { class: 'lead' },
          'Sign in with your fingerprint, face or device PIN instead of a password. A passkey is also a second factor.',
        ),
      ),
      errors,
      h(
        'section',
        { class: 'card' },
        passkeys.length === 0
          ? h('p', { id: 'no-passkeys' }, 'You have no passkeys yet.')
          : h(
              'div',
              { class: 'table-wrap' },
              h(
                'table',
                { id: 'passkeys' },
                h('caption', { class: 'visually-hidden' }, `${passkeys.length} passkeys`),
                h(
                  'thead',
                  {},
                  h(
                    'tr',
                    {},
                    h('th', { scope: 'col' }, 'Name'),
                    h('th', { scope: 'col' }, 'Added'),
                    h('th', { scope: 'col' }, 'Last used'),
                    h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
                  ),
                ),
                h('tbody', {}, ...rows),
              ),
            ),
      ),
      h('section', { class: 'card narrow' }, add),
    );
  },
});
