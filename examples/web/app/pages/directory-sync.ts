// The directory-sync page (API 1.3, SCIM provisioning): administrators see the organisation's SCIM
// connection; an owner creates or rotates its token (shown once), revokes it, and maps the directory's
// groups to roles. The owner's changes need a recent authentication: they run through the
// re-authentication dialog.
import type { ScimGroupRole, ScimSettings } from 'tenant-auth-client';
import { addRoute, announce, client, heading, isAdmin, render, state } from '../app.js';
import { copyable } from '../copyable.js';
import { confirmDialog, formAlert, h, onSubmit, showError, time, uid } from '../dom.js';
import { secretPanel } from '../secret-panel.js';

const ROLE_LABELS: Record<ScimGroupRole['role'], string> = { admin: 'Admin', member: 'Member' };

/** The connection as facts: its state, the base URL to give the directory, when the token was made and used. */
function connectionFacts(scim: ScimSettings): HTMLElement {
  const fact = (term: string, value: Node | string) => [h('dt', {}, term), h('dd', {}, value)];
  return h(
    'dl',
    { class: 'facts', id: 'scim-connection' },
    ...fact(
      'Status',
      scim.enabled
        ? h('span', { class: 'badge success', id: 'scim-status' }, 'Token active')
        : h('span', { class: 'badge warning', id: 'scim-status' }, 'No token'),
    ),
    ...fact('Base URL (Tenant URL, SCIM connector base URL)', copyable('scim-base-url', scim.baseUrl)),
    ...fact('Token created', scim.createdAt ? time(scim.createdAt) : '—'),
    ...fact(
      'Last used by the directory',
      h('span', { id: 'scim-last-used' }, scim.lastUsedAt ? time(scim.lastUsedAt) : 'Never'),
    ),
  );
}

/** One editable line of the mapping: the group's name, its role, and a button that removes the line. */
function groupRoleRow(line: ScimGroupRole, index: number, remove: () => void): HTMLTableRowElement {
  const n = index + 1;
  const groupId = uid('scim-group');
  const roleId = uid('scim-role');
  const role = h('select', {
    id: roleId,
    name: `groupRoles.${index}.role`,
    'aria-label': `Role of group ${n}`,
  });
  for (const value of ['member', 'admin'] as const) {
    role.append(h('option', { value, selected: value === line.role }, ROLE_LABELS[value]));
  }
  return h(
    'tr',
    { class: 'group-role' },
    h(
      'td',
      {},
      h('input', {
        id: groupId,
        name: `groupRoles.${index}.group`,
        type: 'text',
        required: true,
        autocomplete: 'off',
        value: line.group,
        'aria-label': `Group ${n}`,
        'aria-describedby': `${groupId}-error`,
      }),
      h('p', { class: 'field-error', id: `${groupId}-error`, hidden: true }),
    ),
    h('td', {}, role, h('p', { class: 'field-error', id: `${roleId}-error`, hidden: true })),
    h(
      'td',
      {},
      h(
        'button',
        { type: 'button', class: 'secondary small', 'aria-label': `Remove group ${n}`, onclick: remove },
        'Remove',
      ),
    ),
  );
}

/** The lines as the form holds them now (what the owner typed, not yet saved). */
function linesOf(body: HTMLElement): ScimGroupRole[] {
  return [...body.querySelectorAll<HTMLTableRowElement>('tr.group-role')].map((row) => ({
    group: row.querySelector('input')?.value ?? '',
    role: (row.querySelector('select')?.value ?? 'member') as ScimGroupRole['role'],
  }));
}

/** The owner's mapping form: add and remove lines, then save them all at once. */
function groupRolesForm(saved: ScimGroupRole[]): HTMLFormElement {
  const body = h('tbody', {});
  const empty = h(
    'p',
    { class: 'muted', id: 'no-group-roles' },
    'No group mapped: provisioned users are members.',
  );
  const table = h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { id: 'group-roles' },
      h('caption', { class: 'visually-hidden' }, 'Roles given by directory groups'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Group (display name)'),
          h('th', { scope: 'col' }, 'Role'),
          h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
        ),
      ),
      body,
    ),
  );
  const draw = (lines: ScimGroupRole[]) => {
    body.replaceChildren(
      ...lines.map((line, index) =>
        groupRoleRow(line, index, () => {
          const now = linesOf(body);
          now.splice(index, 1);
          draw(now);
          (body.querySelector('input') ?? document.getElementById('scim-add-group'))?.focus();
        }),
      ),
    );
    empty.hidden = lines.length > 0;
    table.hidden = lines.length === 0;
  };
  const add = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      id: 'scim-add-group',
      onclick: () => {
        draw([...linesOf(body), { group: '', role: 'member' }]);
        [...body.querySelectorAll('input')].at(-1)?.focus();
      },
    },
    'Add group',
  );
  const form = onSubmit(
    h(
      'form',
      { 'aria-labelledby': 'group-roles-title' },
      table,
      empty,
      formAlert(),
      h('div', { class: 'actions' }, add, h('button', { type: 'submit' }, 'Save group roles')),
    ),
    async () => {
      const lines = linesOf(body).map((line) => ({ ...line, group: line.group.trim() }));
      const groupRoles = await client.setScimGroupRoles(lines);
      await render();
      announce(
        `The group roles are saved (${groupRoles.length}): the roles of provisioned users follow them.`,
      );
    },
  );
  draw(saved);
  return form;
}

/** The mapping as text, for administrators (only owners change it). */
function groupRolesTable(groupRoles: ScimGroupRole[]): HTMLElement {
  if (groupRoles.length === 0) {
    return h(
      'p',
      { class: 'muted', id: 'no-group-roles' },
      'No group mapped: provisioned users are members.',
    );
  }
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { id: 'group-roles' },
      h('caption', { class: 'visually-hidden' }, 'Roles given by directory groups'),
      h(
        'thead',
        {},
        h('tr', {}, h('th', { scope: 'col' }, 'Group (display name)'), h('th', { scope: 'col' }, 'Role')),
      ),
      h(
        'tbody',
        {},
        ...groupRoles.map((line) =>
          h(
            'tr',
            { class: 'group-role' },
            h('th', { scope: 'row' }, line.group),
            h('td', {}, ROLE_LABELS[line.role]),
          ),
        ),
      ),
    ),
  );
}

addRoute('/directory-sync', {
  title: 'Directory sync',
  access: 'user',
  async render(main) {
    if (!isAdmin()) {
      main.append(
        heading('Directory sync'),
        h('p', { class: 'notice' }, 'Only owners and administrators see directory sync.'),
      );
      return;
    }
    const owner = state.session?.user.role === 'owner';
    const scim = await client.getScim();
    // The alert of the actions outside a form (create, rotate, revoke): a refusal is read out and focused.
    const errors = h('form', { class: 'errors' }, formAlert());
    errors.noValidate = true;
    const act = async (run: () => Promise<void>) => {
      try {
        await run();
      } catch (err) {
        showError(errors, err);
      }
    };

    const createToken = h(
      'button',
      {
        type: 'button',
        class: scim.enabled ? 'secondary' : undefined,
        onclick: () =>
          act(async () => {
            if (scim.enabled) {
              const ok = await confirmDialog({
                title: 'Rotate the SCIM token?',
                body: 'The current token stops working at once: give the new one to your directory straight away.',
                confirm: 'Rotate token',
              });
              if (!ok) return;
            }
            // A recent authentication is needed: the dialog asks for it when the sign-in is old.
            const created = await client.createScimToken();
            // The page again, then the token once: `Done` (or leaving the page) drops it from the document.
            await render();
            const panel = document.getElementById('scim-reveal');
            panel?.replaceChildren(
              secretPanel({
                prefix: 'new-scim-token',
                title: 'Your SCIM token',
                help: "Paste it into your directory's provisioning settings (Secret Token, API Token) with the base URL. Copy it now: it is shown this once.",
                secret: created.token,
                done: () => {
                  panel.replaceChildren();
                  announce('The token is no longer shown.', 'info');
                },
              }),
            );
            document.getElementById('new-scim-token-secret')?.focus();
          }),
      },
      scim.enabled ? 'Rotate token' : 'Create token',
    );
    const revokeToken = h(
      'button',
      {
        type: 'button',
        class: 'danger',
        onclick: () =>
          act(async () => {
            const ok = await confirmDialog({
              title: 'Revoke the SCIM token?',
              body: 'Your directory can no longer create, change or deactivate users here. Users already provisioned stay.',
              confirm: 'Revoke token',
            });
            if (!ok) return;
            await client.revokeScimToken();
            await render();
            announce('The SCIM token was revoked.');
          }),
      },
      'Revoke token',
    );

    main.append(
      h(
        'div',
        { class: 'page-head' },
        heading('Directory sync'),
        h(
          'p',
          { class: 'lead' },
          'Your directory (Entra ID, Okta, Google, JumpCloud…) creates, updates and deactivates your users here through SCIM 2.0, and gives roles through its groups.',
        ),
      ),
      errors,
      h('div', { id: 'scim-reveal' }),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'scim-title' },
        h('h2', { id: 'scim-title', tabindex: -1 }, 'Connection'),
        connectionFacts(scim),
        h(
          'p',
          {},
          'The directory may only provision addresses of your verified domains (see Single sign-on).',
        ),
        owner
          ? h('div', { class: 'actions' }, createToken, scim.enabled ? revokeToken : null)
          : h('p', { class: 'notice' }, 'Only owners create, rotate and revoke the token.'),
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'group-roles-title' },
        h('h2', { id: 'group-roles-title', tabindex: -1 }, 'Roles from groups'),
        h(
          'p',
          {},
          'A provisioned user gets the highest role of its groups, else Member. Owners keep their role, and users the directory does not manage keep the roles you give them.',
        ),
        owner ? groupRolesForm(scim.groupRoles) : groupRolesTable(scim.groupRoles),
      ),
    );
  },
});
