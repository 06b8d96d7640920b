// The account page: tenant, email and its verification, password and email changes, deletion.
import type { Member } from 'tenant-auth-client';
import { addRoute, announce, client, flashNext, heading, navigate, state } from '../app.js';
import { confirmDialog, field, formAlert, h, onSubmit, showError } from '../dom.js';
import { ROLE_LABELS } from '../messages.js';

addRoute('/account', {
  title: 'Your account',
  access: 'user',
  async render(main) {
    const session = state.session!;
    // Tokens carry the user as it was at sign-in; the member list has the address and its verification now.
    const [tenant, members] = await Promise.all([client.getMyTenant(), client.listMembers()]);
    state.tenant = tenant;
    const me: Pick<Member, 'email' | 'emailVerified' | 'role'> =
      members.find((m) => m.id === session.user.id) ?? session.user;

    const verification = me.emailVerified
      ? h('span', { class: 'badge success', id: 'email-status' }, 'Verified')
      : h('span', { class: 'badge warning', id: 'email-status' }, 'Not verified');
    const resendAlert = h('p', { class: 'form-alert', role: 'alert', hidden: true, tabindex: -1 });
    const resend = me.emailVerified
      ? null
      : h(
          'form',
          { class: 'inline' },
          h('button', { type: 'submit', class: 'secondary' }, 'Resend verification email'),
          resendAlert,
        );
    if (resend) {
      onSubmit(resend, async () => {
        await client.requestEmailVerification();
        announce(`We sent a new verification link to ${me.email}.`);
      });
    }

    const profile = h(
      'section',
      { class: 'card', 'aria-labelledby': 'profile-title' },
      h('h2', { id: 'profile-title' }, 'Profile'),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Organisation'),
        h('dd', { id: 'tenant-name' }, tenant.name, ' ', h('span', { class: 'muted' }, `(${tenant.slug})`)),
        h('dt', {}, 'Email'),
        h('dd', {}, h('span', { id: 'email' }, me.email), ' ', verification),
        h('dt', {}, 'Role'),
        h('dd', { id: 'role' }, ROLE_LABELS[me.role]),
      ),
      resend,
    );

    const passwordForm = onSubmit(
      h(
        'form',
        {},
        field({
          label: 'Current password',
          name: 'currentPassword',
          type: 'password',
          autocomplete: 'current-password',
        }),
        field({
          label: 'New password',
          name: 'newPassword',
          type: 'password',
          autocomplete: 'new-password',
          hint: 'At least 12 characters.',
        }),
        formAlert(),
        h('button', { type: 'submit' }, 'Change password'),
      ),
      async ({ currentPassword = '', newPassword = '' }) => {
        await client.changePassword({ currentPassword, newPassword });
        passwordForm.reset();
        announce('Your password was changed. Your other sessions were signed out.');
      },
    );

    const emailForm = onSubmit(
      h(
        'form',
        {},
        field({ label: 'New email', name: 'newEmail', type: 'email', autocomplete: 'email' }),
        field({ label: 'Password', name: 'password', type: 'password', autocomplete: 'current-password' }),
        formAlert(),
        h('button', { type: 'submit' }, 'Change email'),
      ),
      async ({ newEmail = '', password = '' }) => {
        await client.changeEmail({ newEmail, password });
        emailForm.reset();
        announce(`We sent a confirmation link to ${newEmail}. Your address changes once you open it.`);
      },
    );

    const deleteForm = h(
      'form',
      {},
      field({ label: 'Password', name: 'password', type: 'password', autocomplete: 'current-password' }),
      formAlert(),
      h('button', { type: 'submit', class: 'danger' }, 'Delete my account'),
    );
    deleteForm.noValidate = true;
    deleteForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      const password = new FormData(deleteForm).get('password');
      const ok = await confirmDialog({
        title: 'Delete your account?',
        body: 'Your account and every session of it are deleted for good. This cannot be undone.',
        confirm: 'Delete account',
      });
      if (!ok) return;
      try {
        await client.deleteAccount({ password: typeof password === 'string' ? password : '' });
        flashNext('Your account was deleted. Goodbye!');
        await navigate('/sign-in', { replace: true });
      } catch (err) {
        showError(deleteForm, err);
      }
    });

    main.append(
      h('div', { class: 'page-head' }, heading('Your account')),
      profile,
      h(
        'div',
        { class: 'grid' },
        h(
          'section',
          { class: 'card', 'aria-labelledby': 'password-title' },
          h('h2', { id: 'password-title' }, 'Change password'),
          passwordForm,
        ),
        h(
          'section',
          { class: 'card', 'aria-labelledby': 'email-title' },
          h('h2', { id: 'email-title' }, 'Change email'),
          emailForm,
        ),
      ),
      h(
        'section',
        { class: 'card danger-zone', 'aria-labelledby': 'delete-title' },
        h('h2', { id: 'delete-title' }, 'Delete account'),
        h(
          'p',
          {},
          'Deleting your account signs you out everywhere. If you are the only owner of an organisation with other members, make someone else an owner first.',
        ),
        deleteForm,
      ),
    );
  },
});
