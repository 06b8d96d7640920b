// The sessions page: where the account is signed in, and signing out the others.
import { addRoute, announce, client, heading, render } from '../app.js';
import { confirmDialog, formAlert, h, showError, time } from '../dom.js';

addRoute('/sessions', {
  title: 'Sessions',
  access: 'user',
  async render(main) {
    const sessions = await client.listSessions();
    const alert = formAlert();
    const errors = h('form', { class: 'errors' }, alert);

    const rows = sessions.map((s) => {
      const revoke = s.current
        ? h('span', { class: 'muted' }, '—')
        : h(
            'button',
            {
              type: 'button',
              class: 'secondary small',
              'aria-label': `Sign out ${s.deviceInfo} (last used ${new Date(s.lastUsedAt).toLocaleString()})`,
              onclick: async () => {
                const ok = await confirmDialog({
                  title: 'Sign out this session?',
                  body: `${s.deviceInfo} will need to sign in again.`,
                  confirm: 'Sign out session',
                });
                if (!ok) return;
                try {
                  await client.revokeSession(s.id);
                  await render();
                  announce(`Signed out ${s.deviceInfo}.`);
                } catch (err) {
                  showError(errors, err);
                }
              },
            },
            'Sign out',
          );
      return h(
        'tr',
        { 'data-session-id': s.id, class: s.current ? 'current' : undefined },
        h(
          'th',
          { scope: 'row' },
          s.deviceInfo,
          s.current ? h('span', { class: 'badge success' }, 'This device') : null,
        ),
        h('td', {}, s.ipAddress ?? 'unknown'),
        h('td', { class: 'ua' }, s.userAgent ?? 'unknown'),
        h('td', {}, time(s.lastUsedAt)),
        h('td', {}, time(s.createdAt)),
        h('td', {}, revoke),
      );
    });

    const others = sessions.filter((s) => !s.current).length;
    const revokeOthers = h(
      'button',
      {
        type: 'button',
        class: 'danger',
        disabled: others === 0,
        onclick: async () => {
          const ok = await confirmDialog({
            title: 'Sign out all other sessions?',
            body: 'Every other device signed in to your account will need to sign in again. This one stays signed in.',
            confirm: 'Sign out others',
          });
          if (!ok) return;
          try {
            const count = await client.revokeAllSessions({ exceptCurrent: true });
            await render();
            announce(`Signed out ${count} other session${count === 1 ? '' : 's'}.`);
          } catch (err) {
            showError(errors, err);
          }
        },
      },
      'Sign out all other sessions',
    );

    main.append(
      h(
        'div',
        { class: 'page-head' },
        heading('Sessions'),
        h(
          'p',
          { class: 'lead' },
          'The devices signed in to your account. Sign out any you do not recognise.',
        ),
      ),
      errors,
      h(
        'section',
        { class: 'card' },
        h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { id: 'sessions' },
            h('caption', { class: 'visually-hidden' }, `${sessions.length} active sessions`),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', { scope: 'col' }, 'Device'),
                h('th', { scope: 'col' }, 'IP address'),
                h('th', { scope: 'col' }, 'User agent'),
                h('th', { scope: 'col' }, 'Last used'),
                h('th', { scope: 'col' }, 'Signed in'),
                h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
              ),
            ),
            h('tbody', {}, ...rows),
          ),
        ),
        h('div', { class: 'actions' }, revokeOthers),
      ),
    );
  },
});
