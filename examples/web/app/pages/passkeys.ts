// Passkeys: the page that lists, adds and removes them, and the "Sign in with a passkey" button of the
// sign-in page. The browser and the authenticator do the WebAuthn part (the client's `passkeys`).
import { addRoute, announce, client, heading, render } from '../app.js';
import { confirmDialog, field, formAlert, h, onSubmit, time } from '../dom.js';
import { ceremony, inWords, showPasskeyError } from '../passkey-ceremony.js';

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
 * Makes and registers a passkey named `name`. Adding and removing need a recent authentication: when the
 * server asks for it, the re-authentication dialog does (a passkey, or the password and a code).
 */
async function addPasskey(name: string): Promise<void> {
  await ceremony(() => client.passkeys.register({ name }));
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
                  await client.passkeys.remove(p.id);
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
        await inWords(add, () => addPasskey(values.name?.trim() ?? ''));
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
