// The audit log: the organisation's security events, newest first, a page at a time (cursor).
import type { AuditEvent } from 'tenant-auth-client';
import { addRoute, client, heading } from '../app.js';
import { formAlert, h, showError, time } from '../dom.js';
import { AUDIT_EVENT_LABELS } from '../messages.js';

/** Events per page; `?limit=` (1 to 200) overrides it. */
const PAGE_SIZE = 25;

addRoute('/audit', {
  title: 'Audit log',
  access: 'user',
  async render(main, params) {
    const asked = Number(params.get('limit'));
    const limit = Number.isInteger(asked) && asked >= 1 && asked <= 200 ? asked : PAGE_SIZE;
    const [first, members] = await Promise.all([client.listAuditEvents({ limit }), client.listMembers()]);
    const emails = new Map(members.map((m) => [m.id, m.email]));
    const who = (id: string | null) =>
      id === null
        ? h('span', { class: 'muted' }, '—')
        : (emails.get(id) ?? h('span', { class: 'muted', title: id }, 'former member'));

    const errors = h('form', { class: 'errors' }, formAlert());
    const body = h('tbody', {});
    const status = h('p', { class: 'muted', role: 'status', id: 'audit-status' });
    let shown = 0;
    const add = (events: AuditEvent[]) => {
      for (const e of events) {
        body.append(
          h(
            'tr',
            { 'data-event': e.type },
            h('td', {}, time(e.at)),
            h('th', { scope: 'row' }, AUDIT_EVENT_LABELS[e.type] ?? e.type),
            // The directory (SCIM) and the server itself act without an id: say who they are.
            h('td', {}, e.actorType === 'scim' ? 'Your directory (SCIM)' : who(e.actorId)),
            h('td', {}, who(e.subjectId)),
            h('td', {}, e.ipAddress ?? '—'),
            h('td', { class: 'ua' }, e.userAgent ?? '—'),
          ),
        );
      }
      shown += events.length;
    };
    add(first.events);
    let next = first.next;
    const more = h('button', { type: 'button', class: 'secondary' }, 'Load older events');
    const update = () => {
      more.hidden = next === null;
      status.textContent = next === null ? `All ${shown} events shown.` : `${shown} events shown.`;
    };
    more.addEventListener('click', async () => {
      if (next === null) return;
      more.disabled = true;
      try {
        const page = await client.listAuditEvents({ limit, before: next });
        const firstNew = body.children.length;
        add(page.events);
        next = page.next;
        update();
        // Keyboard users continue where the new rows start.
        (body.children[firstNew] as HTMLElement | undefined)?.setAttribute('tabindex', '-1');
        (body.children[firstNew] as HTMLElement | undefined)?.focus();
      } catch (err) {
        showError(errors, err);
      } finally {
        more.disabled = false;
      }
    });
    update();

    main.append(
      h(
        'div',
        { class: 'page-head' },
        heading('Audit log'),
        h('p', { class: 'lead' }, 'Security events of your organisation, newest first.'),
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
            { id: 'audit' },
            h('caption', { class: 'visually-hidden' }, 'Audit events'),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ...['When', 'Event', 'By', 'About', 'IP address', 'User agent'].map((c) =>
                  h('th', { scope: 'col' }, c),
                ),
              ),
            ),
            body,
          ),
        ),
        h('div', { class: 'actions' }, status, more),
      ),
    );
  },
});
