// Single sign-on (API 1.2): "Sign in with SSO", the page the server sends failed sign-ins to, and the
// owner's page for the organisation's domains and its identity provider. The owner's changes need a
// recent authentication: they run through the re-authentication dialog.
import type { Domain, SsoConnection } from 'tenant-auth-client';
import { addRoute, announce, client, heading, isAdmin, state } from '../app.js';
import { copyable } from '../copyable.js';
import {
  append,
  confirmDialog,
  field,
  formAlert,
  h,
  onSubmit,
  select,
  showError,
  time,
  uid,
} from '../dom.js';

/** What the server's `/sso-error?code=` codes mean to a person. */
const SSO_ERRORS: Record<string, string> = {
  invalid_state: 'The sign-in took too long or was started in another browser. Please start again.',
  idp_error: 'Your identity provider did not complete the sign-in. Please try again.',
  invalid_id_token: 'Your identity provider answered something we cannot trust. Ask your administrator.',
  domain_mismatch:
    'Your identity provider signed you in with an address outside your organisation’s domains.',
  email_taken: 'This address belongs to another organisation here.',
  identity_mismatch: 'This address is linked to another account at your identity provider.',
  link_required:
    'This address belongs to an owner: sign in with your password, then link your identity provider from your account.',
  email_not_verified: 'Your identity provider does not say your address is verified. Ask your administrator.',
  invalid_response: 'Your identity provider answered something we cannot trust. Ask your administrator.',
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
    await run();
  } catch (err) {
    showError(errors, err);
    return;
  }
  announce(message);
  await reload(focus);
}

const domainId = (name: string) => `domain-${name}`;

/** One domain: its state, its TXT record while unverified, and what an owner may do. */
function domainItem(domain: Domain, owner: boolean, errors: HTMLFormElement, reload: Reload): HTMLElement {
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
              change(errors, () => client.verifyDomain(name), `${name} is verified.`, reload, domainId(name)),
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
            const run = () => client.removeDomain(name);
            await change(errors, run, `${name} was removed.`, reload, 'domains-title');
          })
        : null,
    ),
  );
}

/** Days before a certificate's end from which the page warns of it. */
const EXPIRY_WARNING_DAYS = 30;
const DAY_MS = 86_400_000;

/** A signing certificate of a SAML provider: its fingerprint, its end, and a warning near that end. */
function certificateItem(certificate: { fingerprintSha256: string; notAfter: string }): HTMLElement {
  const daysLeft = Math.floor((Date.parse(certificate.notAfter) - Date.now()) / DAY_MS);
  return h(
    'li',
    { class: 'certificate' },
    h('code', { class: 'fingerprint' }, certificate.fingerprintSha256),
    ' expires ',
    time(certificate.notAfter),
    daysLeft < EXPIRY_WARNING_DAYS
      ? h(
          'span',
          { class: 'badge warning certificate-expiring' },
          daysLeft < 0
            ? 'Expired'
            : `Expires in ${daysLeft} day${daysLeft === 1 ? '' : 's'}: add its successor`,
        )
      : null,
  );
}

/** The saved connection, as facts: everything but the client secret, which is never sent back. */
function connectionFacts(sso: SsoConnection): HTMLElement {
  const fact = (term: string, value: Node | string) => [h('dt', {}, term), h('dd', {}, value)];
  const common = [
    ...fact('Role of new users', sso.defaultRole === 'admin' ? 'Admin' : 'Member'),
    ...fact('Require SSO', sso.enforce ? 'Yes (owners keep their password)' : 'No'),
    ...fact('Updated', time(sso.updatedAt)),
  ];
  if (sso.protocol === 'saml') {
    return h(
      'dl',
      { class: 'facts', id: 'sso-connection' },
      ...fact('Protocol', 'SAML 2.0'),
      ...fact('Identity provider entity ID', h('code', {}, sso.entityId ?? '')),
      ...fact('Sign-in URL', h('code', {}, sso.ssoUrl ?? '')),
      ...fact(
        'Signing certificates',
        h('ul', { class: 'certificates' }, ...(sso.certificates ?? []).map(certificateItem)),
      ),
      ...common,
      ...fact('Entity ID (audience)', copyable('sp-entity-id', sso.spEntityId ?? '')),
      ...fact('ACS URL', copyable('sp-acs-url', sso.acsUrl ?? '')),
      ...fact('Metadata URL', copyable('sp-metadata-url', sso.metadataUrl ?? '')),
    );
  }
  return h(
    'dl',
    { class: 'facts', id: 'sso-connection' },
    ...fact('Protocol', 'OpenID Connect'),
    ...fact('Issuer', h('code', {}, sso.issuer ?? '')),
    ...fact('Client ID', h('code', {}, sso.clientId ?? '')),
    ...fact('Client secret', 'Saved, never shown again'),
    ...common,
    ...fact('Redirect URI', copyable('sso-redirect-uri', sso.redirectUri ?? '')),
  );
}

/** A labelled text area with its hint and error line, as `field` makes an input. */
function textArea(options: { label: string; name: string; hint: string; rows?: number }): HTMLDivElement {
  const id = uid(options.name);
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, options.label),
    h('p', { class: 'hint', id: `${id}-hint` }, options.hint),
    h('textarea', {
      id,
      name: options.name,
      rows: options.rows ?? 6,
      spellcheck: 'false',
      'aria-describedby': `${id}-hint ${id}-error`,
    }),
    h('p', { class: 'field-error', id: `${id}-error`, hidden: true }),
  );
}

/** The OpenID Connect fields; the secret is asked for every time. */
function oidcFields(sso: SsoConnection | null): HTMLElement[] {
  const same = sso?.protocol === 'oidc' ? sso : null;
  return [
    field({ label: 'Issuer', name: 'issuer', type: 'url', required: true, value: same?.issuer ?? '' }),
    field({ label: 'Client ID', name: 'clientId', required: true, value: same?.clientId ?? '' }),
    field({
      label: 'Client secret',
      name: 'clientSecret',
      type: 'password',
      required: true,
      autocomplete: 'off',
      hint: 'Stored encrypted and never shown again: enter it each time you save.',
    }),
  ];
}

/** The SAML fields: the provider's metadata (pasted or from a file), or its entity ID, URL and certificates. */
function samlFields(sso: SsoConnection | null): HTMLElement[] {
  const same = sso?.protocol === 'saml' ? sso : null;
  const metadata = textArea({
    label: 'Identity provider metadata (XML)',
    name: 'metadataXml',
    hint: 'Paste the federation metadata of your provider, or choose its file. Or leave it empty and fill in the three fields below.',
  });
  const upload = h('input', {
    type: 'file',
    accept: '.xml,application/xml,text/xml,application/samlmetadata+xml',
    'aria-label': 'Metadata file',
    onchange: async (event: Event) => {
      const file = (event.target as HTMLInputElement).files?.[0];
      const area = metadata.querySelector('textarea');
      if (file && area) area.value = await file.text();
    },
  });
  return [
    metadata,
    h('div', { class: 'field' }, upload),
    field({
      label: 'Identity provider entity ID',
      name: 'entityId',
      required: false,
      value: same?.entityId ?? '',
    }),
    field({ label: 'Sign-in URL', name: 'ssoUrl', type: 'url', required: false, value: same?.ssoUrl ?? '' }),
    textArea({
      label: 'Signing certificates (PEM)',
      name: 'certificates',
      hint: 'One or more, each from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----: during a rollover, both.',
    }),
  ];
}

/** The PEM certificates of a text area, each with its BEGIN and END lines. */
const pemCertificates = (text: string) =>
  text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];

/** The form that connects (or changes) the identity provider: OpenID Connect or SAML 2.0. */
function connectForm(sso: SsoConnection | null, reload: Reload): HTMLFormElement {
  const protocolSlot = h('div', {});
  const protocol = select({
    label: 'Protocol',
    name: 'protocol',
    choices: [
      { value: 'oidc', label: 'OpenID Connect' },
      { value: 'saml', label: 'SAML 2.0' },
    ],
    value: sso?.protocol ?? 'oidc',
  });
  // Only the chosen protocol's fields are in the form, so its required fields are the only ones checked.
  const show = (chosen: string) =>
    protocolSlot.replaceChildren(...(chosen === 'saml' ? samlFields(sso) : oidcFields(sso)));
  const chooser = protocol.querySelector('select');
  chooser?.addEventListener('change', () => show(chooser.value));
  show(sso?.protocol ?? 'oidc');
  return onSubmit(
    h(
      'form',
      { 'aria-labelledby': 'sso-form-title' },
      h(
        'h3',
        { id: 'sso-form-title' },
        sso ? 'Change the identity provider' : 'Connect an identity provider',
      ),
      protocol,
      protocolSlot,
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
    async (values) => {
      const common = {
        defaultRole: (values.defaultRole ?? 'member') as 'member',
        enforce: values.enforce === 'true',
      };
      const metadataXml = values.metadataXml?.trim() ?? '';
      const body =
        values.protocol === 'saml'
          ? metadataXml !== ''
            ? { protocol: 'saml' as const, metadataXml, ...common }
            : {
                protocol: 'saml' as const,
                entityId: values.entityId?.trim() ?? '',
                ssoUrl: values.ssoUrl?.trim() ?? '',
                certificates: pemCertificates(values.certificates ?? ''),
                ...common,
              }
          : {
              issuer: values.issuer ?? '',
              clientId: values.clientId ?? '',
              clientSecret: values.clientSecret ?? '',
              ...common,
            };
      // A refusal (a field's code such as issuer_unreachable or invalid_metadata) shows on this form.
      await client.configureSso(body);
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
      const [domains, sso] = await Promise.all([client.listDomains(), client.getSso()]);
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
          const added = await client.addDomain({ domain: domain.trim() });
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
            const run = () => client.removeSso();
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
        sso
          ? h(
              'p',
              {},
              sso.protocol === 'saml'
                ? 'Register the entity ID and ACS URL above at your identity provider, or give it the metadata URL.'
                : 'Register the redirect URI above at your provider.',
            )
          : null,
        sso && owner ? h('div', { class: 'actions' }, removeSso) : null,
        owner ? connectForm(sso, reload) : null,
      );
      document.getElementById(focus)?.focus();
    };
    await reload('');
  },
});
