// The pieces of a TOTP enrolment that the security page and the enrolment a tenant forces share: the QR
// code with its key, the code that confirms it, and the recovery codes shown once. The secret and the
// codes live in these elements only: never in storage, the address or a log; a navigation drops them.
import { announce } from './app.js';
import { formAlert, h, onSubmit } from './dom.js';
import { qrCode } from './qr.js';
import { codeField } from './reauthentication.js';

/** `JBSWY3DPEHPK3PXP` as `JBSW Y3DP EHPK 3PXP`, easier to type into an app by hand. */
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

/**
 * Step 1 and 2 of an enrolment: scan (or type the key), then confirm with a code. `confirm` sends it;
 * a wrong code shows under the field.
 */
export function totpSetup(
  setup: { secret: string; otpauthUri: string },
  confirm: (code: string) => Promise<void>,
): HTMLElement {
  const form = onSubmit(
    h(
      'form',
      { 'aria-labelledby': 'totp-confirm-title' },
      codeField('totp'),
      formAlert(),
      h('button', { type: 'submit' }, 'Turn on two-step verification'),
    ),
    async ({ code = '' }) => confirm(code.trim()),
  );
  return h(
    'div',
    { class: 'totp-setup', id: 'totp-setup' },
    h('h3', {}, '1. Scan this QR code with your authenticator app'),
    h(
      'div',
      { class: 'qr-box' },
      qrCode(setup.otpauthUri, 'QR code to add this account to an authenticator app'),
      h(
        'details',
        {},
        h('summary', {}, 'Cannot scan it? Enter a key instead'),
        h('p', {}, 'Type this key into your app (time-based, 6 digits):'),
        h('code', { class: 'secret', id: 'totp-secret' }, grouped(setup.secret)),
      ),
    ),
    h('h3', { id: 'totp-confirm-title' }, '2. Enter the code the app shows'),
    form,
  );
}

/**
 * The recovery codes, shown this once: a list, **Copy** and **Download** (a text file made in the page),
 * and **I have saved my codes**, which removes them from the page and calls `done`.
 */
export function recoveryCodesPanel(codes: readonly string[], done: () => void): HTMLElement {
  const text = `Tenant Auth recovery codes. Each works once.\n\n${codes.join('\n')}\n`;
  const copy = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(text);
          announce('The recovery codes were copied.');
        } catch {
          announce('The codes could not be copied: select them, or download them instead.', 'error');
        }
      },
    },
    'Copy codes',
  );
  const download = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: () => {
        const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
        const link = h('a', { href: url, download: 'recovery-codes.txt' });
        link.click();
        setTimeout(() => URL.revokeObjectURL(url), 1000);
      },
    },
    'Download codes',
  );
  const panel = h(
    'div',
    { class: 'recovery-codes', id: 'recovery-codes-panel', role: 'group', 'aria-labelledby': 'codes-title' },
    h('h3', { id: 'codes-title', tabindex: -1 }, 'Save your recovery codes'),
    h(
      'p',
      {},
      'If you lose your authenticator app, each of these codes signs you in once. They are shown only now: copy or download them and keep them somewhere safe.',
    ),
    h(
      'ol',
      { class: 'codes', id: 'recovery-codes' },
      ...codes.map((code) => h('li', {}, h('code', {}, code))),
    ),
    h(
      'div',
      { class: 'actions' },
      copy,
      download,
      h(
        'button',
        {
          type: 'button',
          onclick: () => {
            panel.remove();
            done();
          },
        },
        'I have saved my codes',
      ),
    ),
  );
  // Focus the heading once the panel is in the page, so a screen reader starts reading here.
  queueMicrotask(() => panel.querySelector<HTMLElement>('h3')?.focus());
  return panel;
}
