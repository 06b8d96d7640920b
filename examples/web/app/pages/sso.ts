// Single sign-on (API 1.2): "Sign in with SSO", the page the server sends failed sign-ins to, and the
// owner's page for the organisation's domains and its identity provider. The owner's changes need a
// recent authentication: they run through the re-authentication dialog.
import type { SsoConnection } from 'tenant-auth-client';
import { addRoute, announce, client, heading, isAdmin, state } from '../app.js';
import { append, confirmDialog, field, formAlert, h, onSubmit, select, showError, time } from '../dom.js';
import { withReauthentication } from '../reauthentication.js';

/** What the server's `/sso-error?code=` codes mean to a person. */
const SSO_ERRORS: Record<string, string> = {
  invalid_state: 'The sign-in took too long or was started in another browser. Please start again.',
  idp_error: 'Your identity provider did not complete the sign-in. Please try again.',
  invalid_id_token: 'Your identity provider answered something we cannot trust. Ask your administrator.',
  domain_mismatch:
    'Your identity provider signed you in with an address outside your organisation’s domains.',
  email_taken: 'This address belongs to another organisation here.',
  identity_mismatch: 'This address is linked to another account at your identity provider.',
};

const card = (...children: (Node | null)[]) => h('section', { class: 'card narrow' }, ...children);

addRoute('/sign-in/sso', {
  title: 'Sign in with SSO',
  access: 'guest',
  render(main) {
    const form = onSubmit(
      h(
        'form',
        { 'aria-labelledby': 'sso-title' },
        field({
          label: 'Work email',
          name: 'email',
          type: 'email',
          autocomplete: 'username',
          required: true,
        }),
        formAlert(),
        h('button', { type: 'submit' }, 'Continue'),
      ),
      async ({ email = '' }) => {
        const { url } = await client.sso.start({ email, returnTo: `${location.origin}/account` });
        location.assign(url);
      },
    );
    const title = heading('Sign in with SSO');
    title.id = 'sso-title';
    main.append(
      card(
        title,
        h('p', { class: 'lead' }, 'Your organisation’s identity provider signs you in.'),
        form,
        h('p', { class: 'links' }, h('a', { href: '/sign-in' }, 'Sign in with a password instead')),
      ),
    );
  },
});

addRoute('/sso-error', {
  title: 'Single sign-on failed',
  access: 'any',
  render(main, params) {
    const text = SSO_ERRORS[params.get('code') ?? ''] ?? 'The sign-in did not complete. Please try again.';
    main.append(
      card(
        heading('Single sign-on failed'),
        h('p', { class: 'notice error', role: 'alert' }, text),
        h('p', {}, h('a', { href: '/sign-in/sso' }, 'Try again')),
      ),
    );
  },
});

interface DomainJson {
  name: string;
  verified: boolean;
  verifiedAt: string | null;
  verification: { name: string; value: string };
}

/**
 * The page's redraw: from the server's state, then focus on the element of id `focus` (what the action
 * changed), so a keyboard or screen-reader user is not left on a button that no longer exists.
 */
type Reload = (focus: string) => Promise<void>;

/**
 * Runs an owner's change (re-authenticated when the server asks), says `message`, and redraws with
 * focus on `focus`; a refusal is said in the page's alert, which takes the focus.
 */
async function change(
  errors: HTMLFormElement,
  run: () => Promise<unknown>,
  message: string,
  reload: Reload,
  focus: string,
) {
  try {
    await withReauthentication(run);
  } catch (err) {
    showError(errors, err);
    return;
  }
  announce(message);
  await reload(focus);
}

const domainId = (name: string) => `domain-${name}`;

/** One domain: its state, its TXT record while unverified, and what an owner may do. */
function domainItem(
  domain: DomainJson,
  owner: boolean,
  errors: HTMLFormElement,
  reload: Reload,
): HTMLElement {
  const { name } = domain;
  const button = (label: string, onclick: () => Promise<void>, tone = 'secondary small') =>
    h('button', { type: 'button', class: tone, 'aria-label': `${label} ${name}`, onclick }, label);
  return h(
    'li',
    { id: domainId(name), tabindex: -1, 'aria-labelledby': `${domainId(name)}-name` },
    h('strong', { id: `${domainId(name)}-name` }, name),
    ' ',
    domain.verified && domain.verifiedAt
      ? h('span', { class: 'badge success' }, 'Verified ', time(domain.verifiedAt))
      : h('span', { class: 'badge warning' }, 'Not verified'),
    domain.verified
      ? null
      : h(
          'dl',
          { class: 'facts txt-record' },
          h('dt', {}, 'TXT record name'),
          h('dd', {}, h('code', { class: 'txt-name' }, domain.verification.name)),
          h('dt', {}, 'Value'),
          h('dd', {}, h('code', { class: 'txt-value' }, domain.verification.value)),
        ),
    h(
      'div',
      { class: 'actions' },
      owner && !domain.verified
        ? button(
            'Verify',
            () =>
              change(
                errors,
                () => client.request('verifyDomain', { params: { name } }),
                `${name} is verified.`,
                reload,
                domainId(name),
              ),
            'small',
          )
        : null,
      owner
        ? button('Remove', async () => {
            const ok = await confirmDialog({
              title: `Remove ${name}?`,
              body: 'Its addresses will no longer sign in with your identity provider.',
              confirm: 'Remove domain',
            });
            if (!ok) return;
            const run = () => client.request('removeDomain', { params: { name } });
            await change(errors, run, `${name} was removed.`, reload, 'domains-title');
          })
        : null,
    ),
  );
}

/** The saved connection, as facts: everything but the client secret, which is never sent back. */
function connectionFacts(sso: SsoConnection): HTMLElement {
  const fact = (term: string, value: Node | string) => [h('dt', {}, term), h('dd', {}, value)];
  return h(
    'dl',
    { class: 'facts', id: 'sso-connection' },
    ...fact('Issuer', h('code', {}, sso.issuer)),
    ...fact('Client ID', h('code', {}, sso.clientId)),
    ...fact('Client secret', 'Saved, never shown again'),
    ...fact('Role of new users', sso.defaultRole === 'admin' ? 'Admin' : 'Member'),
    ...fact('Require SSO', sso.enforce ? 'Yes (owners keep their password)' : 'No'),
    ...fact('Redirect URI', h('code', {}, sso.redirectUri)),
    ...fact('Updated', time(sso.updatedAt)),
  );
}

/** The form that connects (or changes) the identity provider; the secret is asked for every time. */
function connectForm(sso: SsoConnection | null, reload: Reload): HTMLFormElement {
  return onSubmit(
    h(
      'form',
      { 'aria-labelledby': 'sso-form-title' },
      h(
        'h3',
        { id: 'sso-form-title' },
        sso ? 'Change the identity provider' : 'Connect an identity provider',
      ),
      field({ label: 'Issuer', name: 'issuer', type: 'url', required: true, value: sso?.issuer ?? '' }),
      field({ label: 'Client ID', name: 'clientId', required: true, value: sso?.clientId ?? '' }),
      field({
        label: 'Client secret',
        name: 'clientSecret',
        type: 'password',
        required: true,
        autocomplete: 'off',
        hint: 'Stored encrypted and never shown again: enter it each time you save.',
      }),
      select({
        label: 'Role of new users',
        name: 'defaultRole',
        choices: [
          { value: 'member', label: 'Member' },
          { value: 'admin', label: 'Admin' },
        ],
        value: sso?.defaultRole ?? 'member',
      }),
      select({
        label: 'Require SSO (owners keep their password)',
        name: 'enforce',
        choices: [
          { value: 'false', label: 'No' },
          { value: 'true', label: 'Yes' },
        ],
        value: String(sso?.enforce ?? false),
      }),
      formAlert(),
      h('button', { type: 'submit' }, 'Save identity provider'),
    ),
    async ({ issuer = '', clientId = '', clientSecret = '', defaultRole = 'member', enforce = 'false' }) => {
      const body = {
        issuer,
        clientId,
        clientSecret,
        defaultRole: defaultRole as 'member',
        enforce: enforce === 'true',
      };
      // A refusal (a field's code such as issuer_unreachable) shows on this form, by onSubmit.
      await withReauthentication(() => client.request('configureSso', { body }));
      announce('The identity provider is saved.');
      await reload('sso-title');
    },
  );
}

addRoute('/single-sign-on', {
  title: 'Single sign-on',
  access: 'user',
  async render(main) {
    if (!isAdmin()) throw new Error('admins only');
    const owner = state.session?.user.role === 'owner';
    // The alert of the actions outside a form (verify, remove): a refusal is read out and focused.
    const errors = h('form', { class: 'errors' }, formAlert());
    errors.noValidate = true;
    const domainsPart = h('section', { class: 'card', 'aria-labelledby': 'domains-title' });
    const ssoPart = h('section', { class: 'card', 'aria-labelledby': 'sso-title' });
    main.append(heading('Single sign-on'), errors, domainsPart, ssoPart);
    const reload: Reload = async (focus) => {
      // A refusal said before is over once something succeeded.
      const alert = errors.querySelector<HTMLElement>('.form-alert');
      if (alert) {
        alert.hidden = true;
        alert.textContent = '';
      }
      const [{ domains }, { sso }] = await Promise.all([
        client.request('listDomains', {}),
        client.request('getSso', {}),
      ]);
      const addForm = onSubmit(
        h(
          'form',
          { 'aria-labelledby': 'add-domain-title' },
          h('h3', { id: 'add-domain-title' }, 'Add a domain'),
          field({ label: 'Domain', name: 'domain', required: true, hint: 'For example example.com' }),
          formAlert(),
          h('button', { type: 'submit' }, 'Add domain'),
        ),
        async ({ domain = '' }) => {
          const { domain: added } = await withReauthentication(() =>
            client.request('addDomain', { body: { domain: domain.trim() } }),
          );
          announce(`${added.name} was added. Publish its TXT record, then verify it.`);
          await reload(domainId(added.name));
        },
      );
      domainsPart.replaceChildren();
      append(
        domainsPart,
        h('h2', { id: 'domains-title', tabindex: -1 }, 'Domains'),
        h('p', {}, 'Addresses of a verified domain sign in with your identity provider.'),
        domains.length === 0
          ? h('p', { id: 'no-domains' }, 'No domain yet.')
          : h(
              'ul',
              { class: 'domains', 'aria-labelledby': 'domains-title' },
              ...domains.map((d) => domainItem(d, owner, errors, reload)),
            ),
        owner ? addForm : null,
      );
      const removeSso = h(
        'button',
        {
          type: 'button',
          class: 'danger',
          onclick: async () => {
            const ok = await confirmDialog({
              title: 'Remove the identity provider?',
              body: 'Its users will no longer sign in with single sign-on.',
              confirm: 'Remove identity provider',
            });
            if (!ok) return;
            const run = () => client.request('removeSso', {});
            await change(errors, run, 'The identity provider was removed.', reload, 'sso-title');
          },
        },
        'Remove identity provider',
      );
      ssoPart.replaceChildren();
      append(
        ssoPart,
        h('h2', { id: 'sso-title', tabindex: -1 }, 'Identity provider'),
        sso ? connectionFacts(sso) : h('p', { id: 'sso-none' }, 'Not connected.'),
        sso ? h('p', {}, 'Register the redirect URI above at your provider.') : null,
        sso && owner ? h('div', { class: 'actions' }, removeSso) : null,
        owner ? connectForm(sso, reload) : null,
      );
      document.getElementById(focus)?.focus();
    };
    await reload('');
  },
});
