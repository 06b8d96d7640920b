// Single sign-on (API 1.2): "Sign in with SSO", the page the server sends failed sign-ins to, and the
// owner's page for the organisation's domains and its identity provider.
import { addRoute, announce, client, heading, isAdmin, state } from '../app.js';
import { field, formAlert, h, onSubmit, select, time } from '../dom.js';

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

/** One domain: its state, its TXT record while unverified, and what an owner may do. */
function domainItem(domain: DomainJson, owner: boolean, reload: () => Promise<void>): HTMLElement {
  const act = (label: string, run: () => Promise<unknown>, message: string) =>
    h(
      'button',
      {
        type: 'button',
        onclick: async () => {
          try {
            await run();
            announce(message);
          } catch (err) {
            announce(err instanceof Error ? err.message : 'That did not work.', 'error');
          }
          await reload();
        },
      },
      label,
    );
  return h(
    'li',
    {},
    h('strong', {}, domain.name),
    ' ',
    domain.verified && domain.verifiedAt
      ? h('span', {}, 'verified ', time(domain.verifiedAt))
      : h('span', {}, 'not verified'),
    domain.verified
      ? null
      : h(
          'p',
          {},
          'Add a TXT record ',
          h('code', {}, domain.verification.name),
          ' with the value ',
          h('code', {}, domain.verification.value),
        ),
    owner && !domain.verified
      ? act(
          'Verify',
          () => client.request('verifyDomain', { params: { name: domain.name } }),
          `${domain.name} is verified.`,
        )
      : null,
    owner
      ? act(
          'Remove',
          () => client.request('removeDomain', { params: { name: domain.name } }),
          `${domain.name} was removed.`,
        )
      : null,
  );
}

addRoute('/single-sign-on', {
  title: 'Single sign-on',
  access: 'user',
  async render(main) {
    if (!isAdmin()) throw new Error('admins only');
    const owner = state.session?.user.role === 'owner';
    const section = h('section', { class: 'card' });
    main.append(section);
    const reload = async () => {
      const [{ domains }, { sso }] = await Promise.all([
        client.request('listDomains', {}),
        client.request('getSso', {}),
      ]);
      const addForm = onSubmit(
        h(
          'form',
          { 'aria-label': 'Add a domain' },
          field({ label: 'Domain', name: 'domain', required: true, hint: 'For example example.com' }),
          formAlert(),
          h('button', { type: 'submit' }, 'Add domain'),
        ),
        async ({ domain = '' }) => {
          await client.request('addDomain', { body: { domain } });
          announce(`${domain} was added. Publish its TXT record, then verify it.`);
          await reload();
        },
      );
      const connectForm = onSubmit(
        h(
          'form',
          { 'aria-label': 'Identity provider' },
          field({ label: 'Issuer', name: 'issuer', type: 'url', required: true, value: sso?.issuer ?? '' }),
          field({ label: 'Client ID', name: 'clientId', required: true, value: sso?.clientId ?? '' }),
          field({
            label: 'Client secret',
            name: 'clientSecret',
            type: 'password',
            required: true,
            autocomplete: 'off',
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
        async ({
          issuer = '',
          clientId = '',
          clientSecret = '',
          defaultRole = 'member',
          enforce = 'false',
        }) => {
          await client.request('configureSso', {
            body: {
              issuer,
              clientId,
              clientSecret,
              defaultRole: defaultRole as 'member',
              enforce: enforce === 'true',
            },
          });
          announce('The identity provider is saved.');
          await reload();
        },
      );
      const parts: (Node | null)[] = [
        heading('Single sign-on'),
        h('h2', {}, 'Domains'),
        domains.length === 0
          ? h('p', {}, 'No domain yet.')
          : h('ul', {}, ...domains.map((d) => domainItem(d, owner, reload))),
        owner ? addForm : null,
        h('h2', {}, 'Identity provider'),
        sso
          ? h('p', {}, 'Register this redirect URI at your provider: ', h('code', {}, sso.redirectUri))
          : h('p', {}, 'Not connected.'),
        owner ? connectForm : null,
      ];
      section.replaceChildren(...parts.filter((p): p is Node => p !== null));
    };
    await reload();
  },
});
