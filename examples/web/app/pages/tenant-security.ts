// The organisation's security policy: owners require two-step verification of every member; admins
// see it. Turning it on signs out every session without a second factor, and needs a recent
// authentication (the re-authentication dialog) and a factor of the owner's own.
import { addRoute, announce, client, heading, state } from '../app.js';
import { formAlert, h, onSubmit } from '../dom.js';

addRoute('/organisation/security', {
  title: 'Organisation security',
  access: 'user',
  async render(main) {
    const policy = await client.getSecurityPolicy();
    const isOwner = state.session?.user.role === 'owner';
    const checkbox = h('input', {
      type: 'checkbox',
      id: 'require-mfa',
      name: 'requireMfa',
      checked: policy.requireMfa,
      disabled: !isOwner,
      'aria-describedby': 'require-mfa-hint',
    });
    const form = onSubmit(
      h(
        'form',
        {},
        h(
          'div',
          { class: 'field checkbox' },
          checkbox,
          h('label', { for: 'require-mfa' }, 'Require two-step verification for every member'),
        ),
        h(
          'p',
          { class: 'hint', id: 'require-mfa-hint' },
          'Members without it are signed out at once and must set it up at their next sign-in. You need it on your own account first.',
        ),
        formAlert(),
        isOwner ? h('button', { type: 'submit' }, 'Save') : null,
      ),
      async () => {
        const requireMfa = checkbox.checked;
        const saved = await client.setSecurityPolicy({ requireMfa });
        checkbox.checked = saved.requireMfa;
        announce(
          saved.requireMfa
            ? 'Two-step verification is now required in your organisation.'
            : 'Two-step verification is no longer required.',
        );
      },
    );
    main.append(
      h('div', { class: 'page-head' }, heading('Organisation security')),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'policy-title' },
        h('h2', { id: 'policy-title' }, 'Two-step verification'),
        isOwner ? null : h('p', { class: 'notice info' }, 'Only an owner can change this.'),
        form,
        h('p', { class: 'links' }, h('a', { href: '/security' }, 'Your own two-step verification')),
      ),
    );
  },
});
