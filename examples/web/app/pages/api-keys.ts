// API keys (API 1.2): administrators create keys for their back-ends and scripts, see them, revoke them.
// A new key's secret is shown once, in this page's memory only: never in storage, the address or a log,
// and gone from the document as soon as the administrator is done or navigates away.
import { type ApiKey, ROLES, type Role } from 'tenant-auth-client';
import { addRoute, announce, client, heading, isAdmin, render, state } from '../app.js';
import { confirmDialog, field, formAlert, h, onSubmit, select, showError, time } from '../dom.js';
import { ROLE_LABELS } from '../messages.js';
import { secretPanel } from '../secret-panel.js';

/** Expiry choices, in days (`''`: never). */
const EXPIRIES = [
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: '1 year' },
  { value: '', label: 'Never' },
];

/** The roles a key may get: at most the caller's own. */
const grantable = (): readonly Role[] =>
  state.session?.user.role === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner');

function keyRow(key: ApiKey, errors: HTMLFormElement): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-api-key': key.name },
    h('th', { scope: 'row' }, key.name),
    h('td', {}, h('code', {}, `${key.prefix}…`)),
    h('td', {}, ROLE_LABELS[key.role]),
    h('td', {}, time(key.createdAt)),
    h('td', {}, key.expiresAt ? time(key.expiresAt) : 'Never'),
    h('td', {}, key.lastUsedAt ? time(key.lastUsedAt) : h('span', { class: 'muted' }, 'Never used')),
    h(
      'td',
      {},
      h(
        'button',
        {
          type: 'button',
          class: 'secondary small',
          'aria-label': `Revoke the key ${key.name}`,
          onclick: async () => {
            const ok = await confirmDialog({
              title: `Revoke ${key.name}?`,
              body: 'Everything that uses this key stops working within a few seconds. This cannot be undone.',
              confirm: 'Revoke key',
            });
            if (!ok) return;
            try {
              await client.revokeApiKey(key.id);
              await render();
              announce(`The key ${key.name} was revoked.`);
            } catch (err) {
              showError(errors, err);
            }
          },
        },
        'Revoke',
      ),
    ),
  );
}

addRoute('/api-keys', {
  title: 'API keys',
  access: 'user',
  async render(main) {
    if (!isAdmin()) {
      main.append(
        heading('API keys'),
        h('p', { class: 'notice' }, 'Only owners and administrators manage API keys.'),
      );
      return;
    }
    const apiKeys = await client.listApiKeys();
    const errors = h('form', { class: 'errors' }, formAlert());
    const reveal = h('div', { id: 'api-key-reveal' });
    const createForm = onSubmit(
      h(
        'form',
        { class: 'row-form' },
        field({ label: 'Name', name: 'name', autocomplete: 'off' }),
        select({
          label: 'Role',
          name: 'role',
          value: 'member',
          choices: grantable().map((r) => ({ value: r, label: ROLE_LABELS[r] })),
        }),
        select({ label: 'Expires after', name: 'expires', value: '90', choices: EXPIRIES }),
        h('button', { type: 'submit' }, 'Create key'),
        formAlert(),
      ),
      async ({ name = '', role = 'member', expires = '' }) => {
        // A recent authentication is needed (API 1.2): the dialog asks for it when the sign-in is old.
        const created = await client.createApiKey({
          name,
          role: role as Role,
          ...(expires === '' ? {} : { expiresInDays: Number(expires) }),
        });
        // The list again, then the secret once: `Done` (or leaving the page) drops it from the document.
        await render();
        const panel = document.getElementById('api-key-reveal');
        panel?.replaceChildren(
          secretPanel({
            prefix: 'new-api-key',
            title: `Your new key: ${created.apiKey.name}`,
            help: 'Copy it now and keep it where your back-end keeps its secrets: it is shown this once.',
            secret: created.secret,
            done: () => {
              panel.replaceChildren();
              announce('The secret is no longer shown.', 'info');
            },
          }),
        );
        document.getElementById('new-api-key-secret')?.focus();
      },
    );
    main.append(
      h(
        'div',
        { class: 'page-head' },
        heading('API keys'),
        h(
          'p',
          { class: 'lead' },
          'Keys let your own back-ends and scripts call the API without anyone’s password.',
        ),
      ),
      errors,
      reveal,
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'create-key-title' },
        h('h2', { id: 'create-key-title' }, 'Create a key'),
        h(
          'p',
          { class: 'muted' },
          'A key can do what its role allows on the organisation: never more than your own role.',
        ),
        createForm,
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'keys-title' },
        h('h2', { id: 'keys-title' }, `Keys (${apiKeys.length})`),
        apiKeys.length === 0
          ? h('p', { class: 'muted' }, 'No API keys yet.')
          : h(
              'div',
              { class: 'table-wrap' },
              h(
                'table',
                { id: 'api-keys' },
                h('caption', { class: 'visually-hidden' }, 'API keys'),
                h(
                  'thead',
                  {},
                  h(
                    'tr',
                    {},
                    ...['Name', 'Key', 'Role', 'Created', 'Expires', 'Last used', ''].map((c) =>
                      h('th', { scope: 'col' }, c),
                    ),
                  ),
                ),
                h('tbody', {}, ...apiKeys.map((k) => keyRow(k, errors))),
              ),
            ),
      ),
    );
  },
});
