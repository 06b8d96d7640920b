// A value to give another system (an identity provider's redirect URI, a directory's base URL), shown
// as code with a button that copies it.
import { h } from './dom.js';

/** The value in a `<code id>`, its **Copy** button (described by it), and a status line. */
export function copyable(id: string, value: string): HTMLElement {
  const status = h('span', { role: 'status', class: 'muted' });
  return h(
    'span',
    { class: 'copyable' },
    h('code', { id }, value),
    ' ',
    h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        'aria-describedby': id,
        onclick: async () => {
          try {
            await navigator.clipboard.writeText(value);
            status.textContent = 'Copied.';
          } catch {
            status.textContent = 'Select it and copy it.';
          }
        },
      },
      'Copy',
    ),
    ' ',
    status,
  );
}
