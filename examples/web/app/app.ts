// The application's state and router: one tenant-auth client in cookie mode, the session it reports,
// and history-based navigation with focus moved to each new page's heading.
import {
  createTenantAuthClient,
  isTenantAuthClientError,
  type SessionState,
  type Tenant,
} from 'tenant-auth-client';
import { h } from './dom.js';
import { problemMessage } from './messages.js';
// A cycle (the dialog uses `client`), safe: each side reads the other only when called.
import { reauthenticationDialog } from './reauthentication.js';

/**
 * The reference server's API: `VITE_API_URL`, or `http://localhost:4000/api/v1` (`pnpm start`), as
 * vite.config.ts sets it; the build's Content-Security-Policy lets the page talk to this origin only.
 */
export const API_URL: string = import.meta.env.VITE_API_URL;

/**
 * Cookie mode: the server's HttpOnly cookies carry the tokens, this page never sees one. The client
 * refreshes them shortly before they expire, one tab at a time, and tells the other tabs.
 */
export const client = createTenantAuthClient({
  baseUrl: API_URL,
  mode: 'cookie',
  // Any call refused with reauthentication_required opens this dialog (one at a time) and runs again.
  onReauthenticationRequired: (context) => reauthenticationDialog(context),
});

/** What the application knows of the signed-in user. */
export const state: { session: SessionState | null; tenant: Tenant | null } = { session: null, tenant: null };

export const isAdmin = () => state.session?.user.role === 'owner' || state.session?.user.role === 'admin';

/** A page: its title, who may see it, and how it renders into `<main>`. */
export interface Route {
  title: string;
  /** `user`: signed in only; `guest`: signed out only (sign in, sign up); `any`: everyone. */
  access: 'user' | 'guest' | 'any';
  render(main: HTMLElement, params: URLSearchParams): void | Promise<void>;
}

const routes = new Map<string, Route>();
let onRender: () => void = () => {};

export function addRoute(path: string, route: Route): void {
  routes.set(path, route);
}

/** Called after each render (the header redraws itself). */
export function afterRender(callback: () => void): void {
  onRender = callback;
}

// --- messages that outlive a navigation -----------------------------------------------------------

let pendingFlash: { text: string; tone: 'success' | 'info' | 'error' } | null = null;

/** Says `text` in the live region now (screen readers read it out; it stays visible). */
export function announce(text: string, tone: 'success' | 'info' | 'error' = 'success'): void {
  const region = document.getElementById('flash');
  if (!region) return;
  region.replaceChildren(h('p', { class: `flash ${tone}` }, text));
}

/** Shows `text` on the next page, once it has rendered. */
export function flashNext(text: string, tone: 'success' | 'info' | 'error' = 'success'): void {
  pendingFlash = { text, tone };
}

// --- navigation ---------------------------------------------------------------------------------

let renderCount = 0;

/** Goes to `path` (with its query) inside the application. */
export async function navigate(path: string, options: { replace?: boolean } = {}): Promise<void> {
  if (options.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  await render();
}

/** Renders the page of the current address. */
export async function render(): Promise<void> {
  const count = ++renderCount;
  const main = document.getElementById('main') as HTMLElement;
  const path = location.pathname.replace(/\/+$/, '') || '/';
  const params = new URLSearchParams(location.search);
  if (path === '/') {
    await navigate(state.session ? '/account' : '/sign-in', { replace: true });
    return;
  }
  const route = routes.get(path) ?? routes.get('*');
  if (!route) return;
  if (route.access === 'user' && !state.session) {
    const next = encodeURIComponent(location.pathname + location.search);
    await navigate(`/sign-in?next=${next}`, { replace: true });
    return;
  }
  if (route.access === 'guest' && state.session) {
    await navigate('/account', { replace: true });
    return;
  }
  document.title = `${route.title} · Tenant Auth`;
  // Each render gets its own outlet: a page still loading when the next navigation starts (a sign-out
  // during the members list's request) appends to a detached node, never into the page now shown.
  const outlet = h('div', { class: 'outlet' });
  main.replaceChildren(outlet);
  main.setAttribute('aria-busy', 'true');
  if (pendingFlash) {
    announce(pendingFlash.text, pendingFlash.tone);
    pendingFlash = null;
  } else if (renderCount > 1) {
    document.getElementById('flash')?.replaceChildren();
  }
  try {
    await route.render(outlet, params);
  } catch (err) {
    if (count !== renderCount) return;
    // A page that could not load (a role that may not see it, the server unreachable) says why.
    outlet.replaceChildren(
      h(
        'section',
        { class: 'card narrow' },
        heading(route.title),
        h(
          'p',
          { class: 'notice error', role: 'alert' },
          isTenantAuthClientError(err) ? problemMessage(err) : 'This page could not be loaded.',
        ),
        h('p', {}, h('a', { href: location.pathname + location.search }, 'Try again')),
      ),
    );
  } finally {
    if (count === renderCount) main.removeAttribute('aria-busy');
  }
  if (count !== renderCount) return;
  onRender();
  // Focus the new page's heading (not on first load: the reader starts at the top anyway).
  if (count > 1) main.querySelector<HTMLElement>('h1')?.focus();
}

/** Links to application paths navigate without reloading. */
export function interceptLinks(): void {
  document.addEventListener('click', (event) => {
    const link = (event.target as Element | null)?.closest?.('a');
    if (!link || event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || link.target) return;
    // An in-page anchor (the skip link) is not a navigation: re-rendering would wipe the form, and on the
    // pages of email links the token, already taken out of the address.
    if (link.getAttribute('href')?.startsWith('#')) return;
    const url = new URL(link.href, location.href);
    if (url.origin !== location.origin) return;
    event.preventDefault();
    void navigate(url.pathname + url.search);
  });
  window.addEventListener('popstate', () => void render());
}

/** A page heading that can take focus. */
export const heading = (text: string) => h('h1', { tabindex: -1 }, text);

/**
 * The one-time token of an email link (`?token=`, or `#token=`), removed from the address bar at once
 * so it stays out of the current history entry, of screenshots and of bookmarks (the meta referrer
 * policy keeps it out of any Referer). The one-time token is spent when the form is submitted anyway.
 */
export function takeToken(params: URLSearchParams): string | null {
  const token = params.get('token') ?? new URLSearchParams(location.hash.slice(1)).get('token');
  if (token !== null) history.replaceState(null, '', location.pathname);
  return token;
}
