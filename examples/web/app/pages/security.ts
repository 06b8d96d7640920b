// The user's security page: two-step verification with an authenticator app (set up with a QR code,
// removed), recovery codes (how many remain, a new set), and passkeys (how many, the way to their page). Changing a factor needs a recent
// authentication: the re-authentication dialog asks for it and the action then finishes by itself.
import type { Me } from 'tenant-auth-client';
import { addRoute, announce, client, flashNext, heading, navigate } from '../app.js';
import { append, confirmDialog, formAlert, h, onSubmit } from '../dom.js';
import { recoveryCodesPanel, totpSetup } from '../totp-enrolment.js';

/** A form of one button (its errors show in its own alert). */
const action = (label: string, run: () => Promise<void>, tone: 'secondary' | 'danger' = 'secondary') =>
  onSubmit(
    h('form', { class: 'inline' }, h('button', { type: 'submit', class: tone }, label), formAlert()),
    run,
  );

/** Shows the page again, from the server's state (the secret and codes shown before are dropped). */
const reload = () => navigate('/security', { replace: true });

function totpSection(me: Me): HTMLElement {
  const body = h('div', {});
  const section = h(
    'section',
    { class: 'card', 'aria-labelledby': 'totp-title' },
    h('h2', { id: 'totp-title' }, 'Authenticator app'),
    h(
      'p',
      {},
      'Two-step verification: after your password, a 6-digit code from an app such as Google Authenticator, 1Password or Aegis.',
    ),
    h(
      'p',
      {},
      'Status: ',
      me.mfa.totp
        ? h('span', { class: 'badge success', id: 'totp-status' }, 'On')
        : h('span', { class: 'badge warning', id: 'totp-status' }, 'Off'),
    ),
    body,
  );
  if (!me.mfa.totp) {
    body.append(
      action('Set up authenticator app', async () => {
        const setup = await client.setupTotp();
        body.replaceChildren(
          totpSetup(setup, async (code) => {
            const { recoveryCodes } = await client.confirmTotp({ code });
            announce('Two-step verification is on. Your other sessions were signed out.');
            if (recoveryCodes === null) return void reload();
            body.replaceChildren(recoveryCodesPanel(recoveryCodes, () => void reload()));
          }),
        );
        body.querySelector('input')?.focus();
      }),
    );
    return section;
  }
  body.append(
    action(
      'Remove authenticator app',
      async () => {
        const ok = await confirmDialog({
          title: 'Remove the authenticator app?',
          body: 'You will sign in with your password alone. If no other second factor remains, your recovery codes stop working too.',
          confirm: 'Remove',
        });
        if (!ok) return;
        await client.disableTotp();
        flashNext('The authenticator app was removed.');
        await reload();
      },
      'danger',
    ),
  );
  return section;
}

function recoveryCodesSection(me: Me): HTMLElement | null {
  if (!me.mfa.totp && me.mfa.recoveryCodesRemaining === 0) return null;
  const body = h('div', {});
  body.append(
    h(
      'p',
      { id: 'recovery-codes-remaining' },
      `${me.mfa.recoveryCodesRemaining} unused recovery code${me.mfa.recoveryCodesRemaining === 1 ? '' : 's'} left.`,
    ),
    action('Get new recovery codes', async () => {
      const codes = await client.regenerateRecoveryCodes();
      announce('New recovery codes were made. The old ones no longer work.');
      body.replaceChildren(recoveryCodesPanel(codes, () => void reload()));
    }),
  );
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'codes-section-title' },
    h('h2', { id: 'codes-section-title' }, 'Recovery codes'),
    h('p', {}, 'Each code signs you in once when your authenticator app is not at hand.'),
    body,
  );
}

/** Passkeys: how many, and their own page (`/passkeys`) to add and remove them. */
function passkeysSection(me: Me): HTMLElement {
  const count = me.mfa.passkeys;
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'passkeys-section-title' },
    h('h2', { id: 'passkeys-section-title' }, 'Passkeys'),
    h(
      'p',
      {},
      'Sign in with your fingerprint, face or device PIN instead of a password. A passkey is also a second factor.',
    ),
    h(
      'p',
      { id: 'passkeys-count' },
      count === 0 ? 'You have no passkeys yet.' : `${count} passkey${count === 1 ? '' : 's'}.`,
    ),
    h('p', {}, h('a', { href: '/passkeys' }, count === 0 ? 'Add a passkey' : 'Manage passkeys')),
  );
}

addRoute('/security', {
  title: 'Security',
  access: 'user',
  async render(main) {
    const me = await client.getMe();
    append(
      main,
      h('div', { class: 'page-head' }, heading('Security')),
      totpSection(me),
      recoveryCodesSection(me),
      passkeysSection(me),
    );
  },
});
