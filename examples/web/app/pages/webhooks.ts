// The webhooks page (administrators): the organisation's endpoints that receive its audit events,
// signed. A new endpoint's secret is shown once; each endpoint sends a test, lists its deliveries, is
// re-enabled after the server disabled it, and is deleted.
import {
  AUDIT_EVENT_TYPES,
  type AuditEventType,
  type Webhook,
  type WebhookDelivery,
} from 'tenant-auth-client';
import { addRoute, announce, client, heading, isAdmin, render } from '../app.js';
import { confirmDialog, field, formAlert, h, onSubmit, select, showError, time } from '../dom.js';
import { AUDIT_EVENT_LABELS } from '../messages.js';
import { secretPanel } from '../secret-panel.js';

const DELIVERY_STATUS: Record<WebhookDelivery['status'], string> = {
  pending: 'Pending',
  succeeded: 'Succeeded',
  failed: 'Failed',
};

/** The events an endpoint receives, in words. */
const eventsInWords = (events: Webhook['events']) =>
  events.includes('*') ? 'All events' : events.map((e) => AUDIT_EVENT_LABELS[e as AuditEventType]).join(', ');

/** The deliveries of an endpoint, newest first. */
function deliveriesTable(webhook: Webhook, deliveries: WebhookDelivery[]): HTMLElement {
  if (deliveries.length === 0) return h('p', { class: 'muted' }, 'No delivery yet.');
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'deliveries', 'data-webhook': webhook.id },
      h('caption', { class: 'visually-hidden' }, `Deliveries to ${webhook.url}`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Event', 'Status', 'Attempts', 'Answer', 'Last attempt', 'Next attempt'].map((c) =>
            h('th', { scope: 'col' }, c),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        ...deliveries.map((d) =>
          h(
            'tr',
            { 'data-delivery': d.id, 'data-status': d.status },
            h('th', { scope: 'row' }, d.type),
            h(
              'td',
              {},
              h(
                'span',
                {
                  class: `badge ${d.status === 'succeeded' ? 'success' : d.status === 'failed' ? 'danger' : 'warning'}`,
                },
                DELIVERY_STATUS[d.status],
              ),
            ),
            h('td', {}, String(d.attempt)),
            h('td', {}, d.responseStatus === null ? '—' : String(d.responseStatus)),
            h('td', {}, d.lastAttemptAt ? time(d.lastAttemptAt) : '—'),
            h('td', {}, d.nextAttemptAt ? time(d.nextAttemptAt) : '—'),
          ),
        ),
      ),
    ),
  );
}

/** One endpoint: what it receives, its state, its actions and its deliveries. */
async function endpointCard(webhook: Webhook, errors: HTMLFormElement): Promise<HTMLElement> {
  const { deliveries } = await client.listWebhookDeliveries(webhook.id, { limit: 10 });
  const act = async (run: () => Promise<unknown>, message: string) => {
    try {
      await run();
      await render();
      announce(message);
    } catch (err) {
      showError(errors, err);
    }
  };
  const button = (label: string, onclick: () => Promise<void>, tone = 'secondary small') =>
    h('button', { type: 'button', class: tone, 'aria-label': `${label} ${webhook.url}`, onclick }, label);
  return h(
    'section',
    { class: 'card webhook', 'aria-label': webhook.url, 'data-webhook': webhook.id },
    h('h3', {}, h('code', {}, webhook.url)),
    h(
      'p',
      {},
      webhook.enabled
        ? h('span', { class: 'badge success' }, 'Enabled')
        : h('span', { class: 'badge warning webhook-disabled' }, 'Disabled'),
      ' ',
      webhook.disabledReason ?? '',
    ),
    webhook.description ? h('p', { class: 'muted' }, webhook.description) : null,
    h('p', {}, `Receives: ${eventsInWords(webhook.events)}. Added `, time(webhook.createdAt), '.'),
    h(
      'div',
      { class: 'actions' },
      button('Send test', () =>
        act(() => client.testWebhook(webhook.id), `A test event is on its way to ${webhook.url}.`),
      ),
      webhook.enabled
        ? button('Disable', () =>
            act(() => client.updateWebhook(webhook.id, { enabled: false }), `${webhook.url} is disabled.`),
          )
        : button(
            'Re-enable',
            () =>
              act(
                () => client.updateWebhook(webhook.id, { enabled: true }),
                `${webhook.url} is enabled again: events from now on are delivered.`,
              ),
            'small',
          ),
      button('Delete', async () => {
        const ok = await confirmDialog({
          title: `Delete the endpoint ${webhook.url}?`,
          body: 'Nothing more is delivered to it, including deliveries still waiting.',
          confirm: 'Delete endpoint',
        });
        if (ok) await act(() => client.deleteWebhook(webhook.id), `${webhook.url} was deleted.`);
      }),
      button('Refresh', () => render()),
    ),
    h('h4', {}, 'Recent deliveries'),
    deliveriesTable(webhook, deliveries),
  );
}

addRoute('/webhooks', {
  title: 'Webhooks',
  access: 'user',
  async render(main) {
    if (!isAdmin()) {
      main.append(
        heading('Webhooks'),
        h('p', { class: 'notice' }, 'Only owners and administrators manage webhooks.'),
      );
      return;
    }
    const webhooks = await client.listWebhooks();
    const errors = h('form', { class: 'errors' }, formAlert());
    const reveal = h('div', { id: 'webhook-reveal' });
    const createForm = onSubmit(
      h(
        'form',
        {},
        field({
          label: 'Endpoint URL',
          name: 'url',
          type: 'url',
          autocomplete: 'off',
          hint: 'An https address of your system that accepts POST requests.',
        }),
        select({
          label: 'Events',
          name: 'events',
          value: '*',
          choices: [
            { value: '*', label: 'All events' },
            ...AUDIT_EVENT_TYPES.map((type) => ({ value: type, label: AUDIT_EVENT_LABELS[type] })),
          ],
        }),
        field({ label: 'Description', name: 'description', required: false, autocomplete: 'off' }),
        h('button', { type: 'submit' }, 'Add endpoint'),
        formAlert(),
      ),
      async ({ url = '', events = '*', description = '' }) => {
        // A recent authentication is needed: the dialog asks for it when the sign-in is old.
        const created = await client.createWebhook({
          url: url.trim(),
          events: [events as AuditEventType | '*'],
          ...(description.trim() === '' ? {} : { description: description.trim() }),
        });
        // The list again, then the secret once: `Done` (or leaving the page) drops it from the document.
        await render();
        const panel = document.getElementById('webhook-reveal');
        panel?.replaceChildren(
          secretPanel({
            prefix: 'new-webhook',
            title: 'The signing secret of your new endpoint',
            help: 'Your receiver verifies each delivery with it (Standard Webhooks). Copy it now: it is shown this once.',
            secret: created.secret,
            done: () => {
              panel.replaceChildren();
              announce('The secret is no longer shown.', 'info');
            },
          }),
        );
        document.getElementById('new-webhook-secret')?.focus();
      },
    );
    const cards = await Promise.all(webhooks.map((w) => endpointCard(w, errors)));
    main.append(
      h(
        'div',
        { class: 'page-head' },
        heading('Webhooks'),
        h(
          'p',
          { class: 'lead' },
          "Your organisation's security events (sign-ins, role changes, deactivations…) sent to your own systems as they happen, signed.",
        ),
      ),
      errors,
      reveal,
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'add-webhook-title' },
        h('h2', { id: 'add-webhook-title' }, 'Add an endpoint'),
        createForm,
      ),
      h('h2', { id: 'webhooks-title' }, `Endpoints (${webhooks.length})`),
      ...(webhooks.length === 0
        ? [h('p', { class: 'muted', id: 'no-webhooks' }, 'No endpoint yet.')]
        : cards),
    );
  },
});
