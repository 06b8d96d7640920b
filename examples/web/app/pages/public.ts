// The pages of a signed-out visitor, and the four pages the emails link to.
import { isTenantAuthClientError } from 'tenant-auth-client';
import { addRoute, announce, client, flashNext, heading, navigate, state, takeToken } from '../app.js';
import { field, formAlert, h, onSubmit } from '../dom.js';
import { problemMessage } from '../messages.js';
import { passkeySignIn } from './passkeys.js';
import { continueSignIn } from './second-factor.js';

const PASSWORD_HINT = 'At least 12 characters. A passphrase of a few unrelated words works well.';

/**
 * Where to go after signing in: the page that asked for it, if it is one of ours. Resolved as a URL
 * and compared by origin: prefix checks (`startsWith('/')`) let `/\\evil.example` and `/%09/evil.example`
 * through, which browsers read as `//evil.example`.
 */
function nextPath(params: URLSearchParams): string {
  const next = params.get('next');
  if (next === null) return '/account';
  try {
    const url = new URL(next, location.origin);
    return url.origin === location.origin ? url.pathname + url.search + url.hash : '/account';
  } catch {
    return '/account';
  }
}

/** The card most of these pages are. */
const card = (...children: (Node | null)[]) => h('section', { class: 'card narrow' }, ...children);

/** A page that tells the link of an email is missing its token. */
function incompleteLink(main: HTMLElement, title: string, retry: Node): void {
  main.append(
    card(
      heading(title),
      h(
        'p',
        { class: 'notice error', role: 'alert' },
        'This link is incomplete. Open the link from the email again.',
      ),
      h('p', {}, retry),
    ),
  );
}

addRoute('/sign-in', {
  title: 'Sign in',
  access: 'guest',
  render(main, params) {
    const form = onSubmit(
      h(
        'form',
        { 'aria-labelledby': 'sign-in-title' },
        field({ label: 'Email', name: 'email', type: 'email', autocomplete: 'username' }),
        field({ label: 'Password', name: 'password', type: 'password', autocomplete: 'current-password' }),
        formAlert(),
        h('button', { type: 'submit' }, 'Sign in'),
      ),
      async ({ email = '', password = '' }) => {
        // Signed in, or on to the second step (a code, or the enrolment the organisation requires).
        await continueSignIn(await client.loginStep({ email, password }), nextPath(params));
      },
    );
    const title = heading('Sign in');
    title.id = 'sign-in-title';
    main.append(
      card(
        title,
        h('p', { class: 'lead' }, 'Welcome back. Sign in to your organisation.'),
        form,
        passkeySignIn(() => navigate(nextPath(params), { replace: true })),
        h(
          'p',
          { class: 'links' },
          h('a', { href: '/forgot-password' }, 'Forgot your password?'),
          h('a', { href: '/sign-in/sso' }, 'Sign in with SSO'),
          h('a', { href: '/sign-up' }, 'Create an account'),
        ),
      ),
    );
  },
});

addRoute('/sign-up', {
  title: 'Create an account',
  access: 'guest',
  render(main) {
    const form = onSubmit(
      h(
        'form',
        {},
        field({
          label: 'Organisation name',
          name: 'tenantName',
          autocomplete: 'organization',
          required: false,
        }),
        field({ label: 'Email', name: 'email', type: 'email', autocomplete: 'email' }),
        field({
          label: 'Password',
          name: 'password',
          type: 'password',
          autocomplete: 'new-password',
          hint: PASSWORD_HINT,
        }),
        formAlert(),
        h('button', { type: 'submit' }, 'Create account'),
      ),
      async ({ email = '', password = '', tenantName = '' }) => {
        const result = await client.register({
          email,
          password,
          ...(tenantName.trim() === '' ? {} : { tenantName: tenantName.trim() }),
        });
        state.tenant = result.tenant;
        flashNext(`Welcome! We sent a link to ${result.user.email} to verify your address.`);
        await navigate('/account', { replace: true });
      },
    );
    main.append(
      card(
        heading('Create an account'),
        h('p', { class: 'lead' }, 'Start an organisation; you will be its owner and can invite your team.'),
        form,
        h('p', { class: 'links' }, 'Already have an account? ', h('a', { href: '/sign-in' }, 'Sign in')),
      ),
    );
  },
});

addRoute('/forgot-password', {
  title: 'Forgot your password',
  access: 'any',
  render(main) {
    const form = onSubmit(
      h(
        'form',
        {},
        field({ label: 'Email', name: 'email', type: 'email', autocomplete: 'email' }),
        formAlert(),
        h('button', { type: 'submit' }, 'Send reset link'),
      ),
      async ({ email = '' }) => {
        await client.forgotPassword({ email });
        // The server answers the same whether or not the address has an account: so does the page.
        form.reset();
        announce(
          `If an account exists for ${email}, we sent it a link to reset the password. It is valid for 30 minutes.`,
        );
      },
    );
    main.append(
      card(
        heading('Forgot your password?'),
        h(
          'p',
          { class: 'lead' },
          'Enter the email address of your account and we will send you a link to set a new password.',
        ),
        form,
        h('p', { class: 'links' }, h('a', { href: '/sign-in' }, 'Back to sign in')),
      ),
    );
  },
});

addRoute('/reset-password', {
  title: 'Set a new password',
  access: 'any',
  render(main, params) {
    const token = takeToken(params);
    if (token === null) {
      incompleteLink(main, 'Set a new password', h('a', { href: '/forgot-password' }, 'Ask for a new link'));
      return;
    }
    const form = onSubmit(
      h(
        'form',
        {},
        field({
          label: 'New password',
          name: 'password',
          type: 'password',
          autocomplete: 'new-password',
          hint: PASSWORD_HINT,
        }),
        formAlert(),
        h('button', { type: 'submit' }, 'Set new password'),
      ),
      async ({ password = '' }) => {
        await client.resetPassword({ token, password });
        // Every session of the account was revoked, this browser's too: forget it here as well.
        if (state.session) await client.logout().catch(() => {});
        flashNext(
          'Your password was changed and every session was signed out. Sign in with your new password.',
        );
        await navigate('/sign-in', { replace: true });
      },
    );
    main.append(
      card(
        heading('Set a new password'),
        h(
          'p',
          { class: 'lead' },
          'Choose a new password. Every device signed in to your account will be signed out.',
        ),
        form,
        h('p', { class: 'links' }, h('a', { href: '/forgot-password' }, 'Ask for a new link')),
      ),
    );
  },
});

addRoute('/verify-email', {
  title: 'Verify your email',
  access: 'any',
  async render(main, params) {
    const token = takeToken(params);
    if (token === null) {
      incompleteLink(
        main,
        'Verify your email',
        h('a', { href: '/account' }, 'Send a new link from your account'),
      );
      return;
    }
    const status = h('p', { role: 'status' }, 'Verifying your email address…');
    const box = card(heading('Verify your email'), status);
    main.append(box);
    try {
      await client.verifyEmail({ token });
      status.className = 'notice success';
      status.textContent = 'Your email address is verified. Thank you!';
      box.append(
        h(
          'p',
          {},
          h(
            'a',
            { href: state.session ? '/account' : '/sign-in' },
            state.session ? 'Go to your account' : 'Sign in',
          ),
        ),
      );
    } catch (err) {
      status.className = 'notice error';
      status.setAttribute('role', 'alert');
      status.textContent = isTenantAuthClientError(err, 'validation_failed')
        ? 'This verification link is invalid, was used already, or has expired.'
        : isTenantAuthClientError(err)
          ? problemMessage(err)
          : 'Something unexpected happened.';
      box.append(h('p', {}, h('a', { href: '/account' }, 'Send a new link from your account')));
    }
  },
});

addRoute('/confirm-email-change', {
  title: 'Confirm your new email',
  access: 'any',
  render(main, params) {
    const token = takeToken(params);
    if (token === null) {
      incompleteLink(main, 'Confirm your new email', h('a', { href: '/account' }, 'Change your email again'));
      return;
    }
    const form = onSubmit(
      h('form', {}, formAlert(), h('button', { type: 'submit' }, 'Confirm new email address')),
      async () => {
        await client.confirmEmailChange({ token });
        // The change signs out every other session; the account page reloads the address.
        flashNext('Your email address was changed. Use it to sign in from now on.');
        await navigate(state.session ? '/account' : '/sign-in', { replace: true });
      },
    );
    main.append(
      card(
        heading('Confirm your new email'),
        h(
          'p',
          { class: 'lead' },
          'Confirm to make this address the one you sign in with. Other devices will be signed out.',
        ),
        form,
      ),
    );
  },
});

addRoute('/accept-invitation', {
  title: 'Join your team',
  access: 'any',
  render(main, params) {
    const token = takeToken(params);
    if (token === null) {
      incompleteLink(
        main,
        'Join your team',
        h('span', {}, 'Ask the person who invited you to send a new invitation.'),
      );
      return;
    }
    const signedInAs = state.session?.user.email;
    const form = onSubmit(
      h(
        'form',
        {},
        field({
          label: 'Choose a password',
          name: 'password',
          type: 'password',
          autocomplete: 'new-password',
          hint: PASSWORD_HINT,
        }),
        formAlert(),
        h('button', { type: 'submit' }, 'Accept invitation'),
      ),
      async ({ password = '' }) => {
        const result = await client.acceptInvitationStep({ token, password });
        state.tenant = null;
        // Into an organisation that requires two-step verification, the account is made but set up first.
        const who = result.type === 'signed_in' ? result.user.email : 'a member';
        await continueSignIn(result, '/account', `Welcome aboard! You joined as ${who}.`);
      },
    );
    main.append(
      card(
        heading('Join your team'),
        h(
          'p',
          { class: 'lead' },
          'You were invited to an organisation. Choose a password to create your account.',
        ),
        signedInAs
          ? h(
              'p',
              { class: 'notice info' },
              `You are signed in as ${signedInAs}. Accepting signs you in as the invited account instead.`,
            )
          : null,
        form,
      ),
    );
  },
});

addRoute('*', {
  title: 'Page not found',
  access: 'any',
  render(main) {
    main.append(
      card(
        heading('Page not found'),
        h('p', {}, 'There is no page at this address.'),
        h('p', {}, h('a', { href: '/' }, 'Go to the start page')),
      ),
    );
  },
});
