// The entry point: the page shell (header, navigation, live region), the session, the first render.
import './styles.css';
import { isTenantAuthClientError } from 'tenant-auth-client';
import {
  afterRender,
  announce,
  client,
  flashNext,
  interceptLinks,
  isAdmin,
  navigate,
  render,
  state,
} from './app.js';
import { h } from './dom.js';
import { problemMessage } from './messages.js';
import './pages/account.js';
import './pages/api-keys.js';
import './pages/webhooks.js';
import './pages/directory-sync.js';
import './pages/audit.js';
import './pages/members.js';
import './pages/passkeys.js';
import './pages/public.js';
import './pages/second-factor.js';
import './pages/security.js';
import './pages/sessions.js';
import './pages/tenant-security.js';
import './pages/sso.js';

/** Redraws the header for the current session and page. */
function drawHeader(): void {
  const nav = document.getElementById('nav') as HTMLElement;
  const path = location.pathname;
  // The passkeys page is a part of the security page.
  const here = path === '/passkeys' ? '/security' : path;
  const link = (href: string, text: string) =>
    h('a', { href, 'aria-current': here === href ? 'page' : undefined }, text);
  const session = state.session;
  if (!session) {
    nav.replaceChildren(
      h('ul', {}, h('li', {}, link('/sign-in', 'Sign in')), h('li', {}, link('/sign-up', 'Create account'))),
    );
    return;
  }
  const signOut = h(
    'button',
    {
      type: 'button',
      class: 'link',
      onclick: async () => {
        try {
          await client.logout();
        } catch {
          // The session is forgotten here whatever the server said.
        }
        flashNext('You are signed out.', 'info');
        await navigate('/sign-in');
      },
    },
    'Sign out',
  );
  nav.replaceChildren(
    h(
      'ul',
      {},
      h('li', {}, link('/account', 'Account')),
      h('li', {}, link('/sessions', 'Sessions')),
      h('li', {}, link('/security', 'Security')),
      h('li', {}, link('/members', 'Members')),
      isAdmin() ? h('li', {}, link('/audit', 'Audit log')) : null,
      isAdmin() ? h('li', {}, link('/organisation/security', 'Organisation security')) : null,
      isAdmin() ? h('li', {}, link('/single-sign-on', 'Single sign-on')) : null,
      isAdmin() ? h('li', {}, link('/directory-sync', 'Directory sync')) : null,
      isAdmin() ? h('li', {}, link('/api-keys', 'API keys')) : null,
      isAdmin() ? h('li', {}, link('/webhooks', 'Webhooks')) : null,
    ),
    h(
      'div',
      { class: 'who' },
      h('span', { id: 'signed-in-as' }, session.user.email),
      state.tenant ? h('span', { class: 'muted' }, state.tenant.name) : null,
      signOut,
    ),
  );
}

client.onSessionChange((change) => {
  const wasSignedIn = state.session !== null;
  if (change.type === 'signed_in' || change.type === 'refreshed') {
    if (change.type === 'signed_in' && state.session?.user.id !== change.state.user.id) state.tenant = null;
    state.session = change.state;
    drawHeader();
    // Another tab signed in: leave the sign-in form behind here too.
    if (change.source === 'other_tab' && change.type === 'signed_in' && !wasSignedIn)
      void navigate('/account');
    return;
  }
  state.session = null;
  state.tenant = null;
  drawHeader();
  if (!wasSignedIn) return;
  if (change.type === 'revoked') {
    flashNext(
      'Your session has ended, for example because you signed out on another device. Please sign in again.',
      'info',
    );
    void navigate('/sign-in');
  } else if (change.source === 'other_tab') {
    flashNext('You signed out in another tab.', 'info');
    void navigate('/sign-in');
  }
});

async function start(): Promise<void> {
  interceptLinks();
  afterRender(drawHeader);
  try {
    state.session = await client.restore();
  } catch (err) {
    // Offline or the server refused for now: start signed out, and say why.
    announce(isTenantAuthClientError(err) ? problemMessage(err) : 'The server cannot be reached.', 'error');
  }
  await render();
  document.documentElement.dataset.ready = 'true';
}

window.addEventListener('unhandledrejection', (event) => {
  if (isTenantAuthClientError(event.reason)) {
    announce(problemMessage(event.reason), 'error');
    event.preventDefault();
  }
});

void start();
