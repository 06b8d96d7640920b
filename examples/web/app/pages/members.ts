// The members page: the team with its roles; administrators invite, change roles, deactivate and remove.
import { type Invitation, type Member, ROLES, type Role } from 'tenant-auth-client';
import { addRoute, announce, client, heading, isAdmin, render, state } from '../app.js';
import { confirmDialog, field, formAlert, h, onSubmit, select, showError, time } from '../dom.js';
import { ROLE_LABELS } from '../messages.js';

/** The roles the caller may hand out: only an owner makes owners. */
const grantable = (): readonly Role[] =>
  state.session?.user.role === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner');

function memberRow(member: Member, errors: HTMLFormElement): HTMLTableRowElement {
  const self = member.id === state.session?.user.id;
  // Administrators manage members and administrators; only an owner touches an owner (the server says
  // so too: offering controls that can only answer 403 would be noise).
  const manageable = isAdmin() && !self && (member.role !== 'owner' || state.session?.user.role === 'owner');
  let roleCell: Node = document.createTextNode(ROLE_LABELS[member.role]);
  if (manageable) {
    const choices = ROLES.filter((r) => grantable().includes(r) || r === member.role).map((r) => ({
      value: r,
      label: ROLE_LABELS[r],
    }));
    const picker = h('select', { 'aria-label': `Role of ${member.email}`, name: 'role' });
    for (const c of choices)
      picker.append(h('option', { value: c.value, selected: c.value === member.role }, c.label));
    // Confirmed first: browsers fire `change` on every arrow key of a closed select, and each would
    // otherwise be a privileged request (WCAG 3.2.2, On Input).
    picker.addEventListener('change', async () => {
      const role = picker.value as Role;
      const ok = await confirmDialog({
        title: `Make ${member.email} ${ROLE_LABELS[role].toLowerCase()}?`,
        body:
          role === 'member'
            ? 'They keep their account and lose what administrators may do, at their next request.'
            : 'They get what this role may do at their next request.',
        confirm: 'Change role',
      });
      if (!ok) {
        picker.value = member.role;
        return;
      }
      try {
        await client.changeMemberRole(member.id, { role });
        await render();
        announce(`${member.email} is now ${ROLE_LABELS[role].toLowerCase()}.`);
      } catch (err) {
        picker.value = member.role;
        showError(errors, err);
      }
    });
    roleCell = picker;
  }
  const remove = manageable
    ? h(
        'button',
        {
          type: 'button',
          class: 'secondary small',
          'aria-label': `Remove ${member.email}`,
          onclick: async () => {
            const ok = await confirmDialog({
              title: `Remove ${member.email}?`,
              body: 'Their account is deleted and every session of it ends at once.',
              confirm: 'Remove member',
            });
            if (!ok) return;
            try {
              await client.removeMember(member.id);
              await render();
              announce(`${member.email} was removed.`);
            } catch (err) {
              showError(errors, err);
            }
          },
        },
        'Remove',
      )
    : null;
  // Deactivated (API 1.3): signed out everywhere, keys revoked, refused at sign-in, kept in the team
  // (with its history) until reactivated or removed. A directory (SCIM) deactivates people the same way.
  const active = member.active !== false;
  const toggle = manageable
    ? h(
        'button',
        {
          type: 'button',
          class: 'secondary small',
          'aria-label': `${active ? 'Deactivate' : 'Reactivate'} ${member.email}`,
          onclick: async () => {
            if (active) {
              const ok = await confirmDialog({
                title: `Deactivate ${member.email}?`,
                body: 'Every session of theirs ends at once and the API keys they created are revoked. They cannot sign in until reactivated.',
                confirm: 'Deactivate',
              });
              if (!ok) return;
            }
            try {
              await client.changeMemberRole(member.id, { active: !active });
              await render();
              announce(`${member.email} was ${active ? 'deactivated' : 'reactivated'}.`);
            } catch (err) {
              showError(errors, err);
            }
          },
        },
        active ? 'Deactivate' : 'Reactivate',
      )
    : null;
  return h(
    'tr',
    { 'data-member': member.email, class: active ? undefined : 'inactive' },
    h(
      'th',
      { scope: 'row' },
      member.email,
      self ? h('span', { class: 'badge' }, 'You') : null,
      active ? null : h('span', { class: 'badge warning' }, 'Deactivated'),
    ),
    h('td', {}, roleCell),
    h(
      'td',
      {},
      member.emailVerified
        ? h('span', { class: 'badge success' }, 'Verified')
        : h('span', { class: 'badge warning' }, 'Not verified'),
    ),
    h('td', {}, time(member.createdAt)),
    h('td', { class: 'actions' }, toggle, remove),
  );
}

function invitationRow(invitation: Invitation, errors: HTMLFormElement): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-invitation': invitation.email },
    h('th', { scope: 'row' }, invitation.email),
    h('td', {}, ROLE_LABELS[invitation.role]),
    h('td', {}, time(invitation.createdAt)),
    h('td', {}, time(invitation.expiresAt)),
    h(
      'td',
      {},
      h(
        'button',
        {
          type: 'button',
          class: 'secondary small',
          'aria-label': `Revoke the invitation of ${invitation.email}`,
          onclick: async () => {
            try {
              await client.revokeInvitation(invitation.id);
              await render();
              announce(`The invitation of ${invitation.email} was revoked.`);
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

const table = (id: string, caption: string, columns: string[], rows: Node[]) =>
  h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { id },
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, ...columns.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...rows),
    ),
  );

addRoute('/members', {
  title: 'Members',
  access: 'user',
  async render(main) {
    const admin = isAdmin();
    const [members, invitations] = await Promise.all([
      client.listMembers(),
      admin ? client.listInvitations() : Promise.resolve([]),
    ]);
    const errors = h('form', { class: 'errors' }, formAlert());

    main.append(
      h(
        'div',
        { class: 'page-head' },
        heading('Members'),
        h(
          'p',
          { class: 'lead' },
          admin
            ? 'Everyone in your organisation. Invite people, change their role, deactivate or remove them.'
            : 'Everyone in your organisation. Only owners and administrators can change the team.',
        ),
      ),
      errors,
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'members-title' },
        h('h2', { id: 'members-title' }, `Team (${members.length})`),
        table(
          'members',
          'Members',
          ['Email', 'Role', 'Email status', 'Joined', ''],
          members.map((m) => memberRow(m, errors)),
        ),
      ),
    );
    if (!admin) return;

    const inviteForm = onSubmit(
      h(
        'form',
        { class: 'row-form' },
        field({ label: 'Email', name: 'email', type: 'email', autocomplete: 'off' }),
        select({
          label: 'Role',
          name: 'role',
          value: 'member',
          choices: grantable().map((r) => ({ value: r, label: ROLE_LABELS[r] })),
        }),
        h('button', { type: 'submit' }, 'Send invitation'),
        formAlert(),
      ),
      async ({ email = '', role = 'member' }) => {
        await client.createInvitation({ email, role: role as Role });
        await render();
        announce(`Invitation sent to ${email}.`);
      },
    );
    main.append(
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'invite-title' },
        h('h2', { id: 'invite-title' }, 'Invite someone'),
        h(
          'p',
          { class: 'muted' },
          'They get an email with a link to choose a password. The link is valid for 7 days.',
        ),
        inviteForm,
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'invitations-title' },
        h('h2', { id: 'invitations-title' }, `Pending invitations (${invitations.length})`),
        invitations.length === 0
          ? h('p', { class: 'muted' }, 'No pending invitations.')
          : table(
              'invitations',
              'Pending invitations',
              ['Email', 'Role', 'Sent', 'Expires', ''],
              invitations.map((i) => invitationRow(i, errors)),
            ),
      ),
    );
  },
});
