// A secret shown once (an API key, a webhook's signing secret): read-only, with Copy and Done. `Done`
// (or leaving the page, which redraws it) takes it out of the document.
import { h } from './dom.js';

/**
 * The panel of a secret shown once; its elements are `<prefix>` (the section), `<prefix>-title`,
 * `<prefix>-help` and `<prefix>-secret` (the field).
 */
export function secretPanel(options: {
  prefix: string;
  title: string;
  help: string;
  secret: string;
  done: () => void;
}): HTMLElement {
  const { prefix, secret } = options;
  const value = h('input', {
    id: `${prefix}-secret`,
    type: 'text',
    readonly: true,
    value: secret,
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': `${prefix}-help`,
  });
  const copied = h('span', { role: 'status', class: 'muted' });
  return h(
    'section',
    { class: 'card', 'aria-labelledby': `${prefix}-title`, id: prefix },
    h('h2', { id: `${prefix}-title` }, options.title),
    h('p', { id: `${prefix}-help`, class: 'notice info' }, options.help),
    h('label', { for: `${prefix}-secret` }, 'Secret'),
    value,
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          onclick: async () => {
            try {
              await navigator.clipboard.writeText(secret);
              copied.textContent = 'Copied.';
            } catch {
              value.select();
              copied.textContent = 'Select the secret and copy it.';
            }
          },
        },
        'Copy',
      ),
      h('button', { type: 'button', class: 'secondary', onclick: options.done }, 'Done'),
      copied,
    ),
  );
}
