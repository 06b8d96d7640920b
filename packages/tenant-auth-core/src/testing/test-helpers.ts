// Helpers for core's own tests (not exported).

import { createHmac, randomBytes } from 'node:crypto';
import { createTenantAuth } from '../facade/create-tenant-auth.js';
import type { TenantAuthOptions } from '../facade/options.js';
import type { TenantAuth } from '../facade/tenant-auth.js';
import { createMemoryStores } from '../memory/memory-stores.js';
import type { Logger } from '../ports/logger.js';
import type { MailMessage } from '../ports/mailer.js';
import type {
  IdentityProvider,
  IdentityProviderConnection,
  IdentityProviderResult,
  ProviderConfiguration,
} from '../ports/sso-ports.js';
import type { AuthEvent } from '../vocabulary/auth-event.js';
import type { AccessClaims } from '../vocabulary/claims.js';
import {
  type FieldError,
  isTenantAuthError,
  type TenantAuthError,
  type TenantAuthErrorCode,
} from '../vocabulary/errors.js';
import { ManualClock } from './manual-clock.js';

export const PASSWORD = 'Tr1cky-Harbour-Lantern';
export const quiet: Logger = { error: () => {}, warn: () => {}, info: () => {} };

/** A mailer that keeps what it is given, and can be told to fail. */
export class Inbox {
  readonly messages: MailMessage[] = [];
  failing: Error | undefined;
  async send(message: MailMessage): Promise<void> {
    if (this.failing) throw this.failing;
    this.messages.push(message);
  }
  /** Messages to an address. */
  to(address: string): MailMessage[] {
    return this.messages.filter((m) => m.to === address);
  }
  /** The token of the link in the last message to `address` whose link opens `path`. */
  token(address: string, path: string): string {
    for (const message of [...this.to(address)].reverse()) {
      const match = message.text.match(/https?:\/\/\S+/);
      if (!match) continue;
      const url = new URL(match[0]);
      if (url.pathname === path) return url.searchParams.get('token') ?? '';
    }
    throw new Error(`no link to ${path} was sent to ${address}`);
  }
}

/** A required text field of the fake protocol's input. */
function fakeField(input: Readonly<Record<string, unknown>>, field: string, errors: FieldError[]): string {
  const value = input[field];
  if (typeof value === 'string' && value !== '') return value;
  errors.push({ field, code: 'required', message: `${field} is required.` });
  return '';
}

/**
 * An identity provider for core's tests, of the protocol `oidc` unless told: its input is `issuer`
 * (https), `clientId` and `clientSecret`; `reachable` issuers configure; `finish` answers `next` (an
 * identity, or a failure) once it saw the state and nonce of the URL it started.
 */
export class FakeIdentityProvider implements IdentityProvider {
  reachable = new Set<string>(['https://idp.acme.test']);
  next: IdentityProviderResult = { ok: false, reason: 'idp_error' };
  lastRequest: { state: string; nonce: string; forceAuthentication: boolean } | undefined;
  /** The connections `start` and `finish` were given (the secret opened). */
  readonly seen: IdentityProviderConnection[] = [];
  constructor(
    readonly protocol = 'oidc',
    readonly returnsBy: 'query' | 'form' = 'query',
    readonly stateParameter = 'state',
  ) {}
  checkInput(input: Readonly<Record<string, unknown>>): FieldError[] {
    const errors: FieldError[] = [];
    const issuer = fakeField(input, 'issuer', errors);
    fakeField(input, 'clientId', errors);
    fakeField(input, 'clientSecret', errors);
    if (issuer && !issuer.startsWith('https://'))
      errors.push({ field: 'issuer', code: 'invalid_value', message: 'The issuer must be an https URL.' });
    return errors;
  }
  async configure(input: Readonly<Record<string, unknown>>): Promise<ProviderConfiguration> {
    const issuer = String(input.issuer);
    if (!this.reachable.has(issuer))
      return {
        ok: false,
        errors: [{ field: 'issuer', code: 'issuer_unreachable', message: 'Unreachable.' }],
        detail: 'unreachable',
      };
    return { ok: true, issuer, settings: { clientId: input.clientId }, secret: String(input.clientSecret) };
  }
  describe(connection: Omit<IdentityProviderConnection, 'secret'>) {
    const redirectUri = 'https://auth.acme.test/api/v1/auth/sso/callback';
    return { issuer: connection.issuer, clientId: connection.settings.clientId, redirectUri };
  }
  async start(
    connection: IdentityProviderConnection,
    request: { state: string; forceAuthentication: boolean },
  ) {
    this.seen.push(connection);
    const nonce = randomBytes(16).toString('base64url');
    this.lastRequest = { ...request, nonce };
    const url = `${connection.issuer}/authorize?client_id=${connection.settings.clientId}&state=${request.state}`;
    return { url, kept: { nonce } };
  }
  async finish(
    connection: IdentityProviderConnection,
    response: { params: Readonly<Record<string, string>>; kept: Readonly<Record<string, string>> },
  ): Promise<IdentityProviderResult> {
    this.seen.push(connection);
    const { params, kept } = response;
    if (params[this.stateParameter] !== this.lastRequest?.state || kept.nonce !== this.lastRequest?.nonce)
      return { ok: false, reason: 'invalid_id_token' };
    return this.next;
  }
  /** The clock whose time `signsIn` gives as the `auth_time` (an OpenID Connect provider asked for it). */
  now: (() => Date) | undefined;
  /** The next sign-in says `subject` with `email`, authenticated now (`auth_time`), when the fake has a clock. */
  signsIn(subject: string, email: string, amr: string[] = []): void {
    const authTime = this.now?.();
    this.next = {
      ok: true,
      identity: {
        issuer: 'https://idp.acme.test',
        subject,
        email,
        emailVerified: true,
        amr,
        ...(authTime ? { authTime } : {}),
      },
    };
  }
}

/** Core over the memory stores, a manual clock, a kept inbox, the fake provider `idp` (and `providers` beside it). */
export function setup(overrides: Partial<TenantAuthOptions> = {}, providers: IdentityProvider[] = []) {
  const idp = new FakeIdentityProvider();
  const txt = new Map<string, string[][]>();
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  idp.now = () => clock.now();
  const stores = createMemoryStores();
  const events: AuthEvent[] = [];
  const inbox = new Inbox();
  const auth = createTenantAuth({
    stores,
    accessToken: { secret: 'unit-access-secret-0123456789abcdef' },
    refreshSecret: 'unit-refresh-secret-0123456789abcdef',
    passwordHashing: { cost: 4 },
    rateLimit: false,
    logger: quiet,
    clock,
    onEvent: (e) => events.push(e),
    mail: { mailer: inbox, from: 'Acme <no-reply@acme.test>', appUrl: 'https://app.acme.test/' },
    sso: {
      providers: [idp, ...providers],
      domainResolver: {
        resolveTxt: async (name) => {
          const records = txt.get(name);
          if (!records) throw Object.assign(new Error('no data'), { code: 'ENODATA' });
          return records;
        },
      },
      appUrl: 'https://app.acme.test',
    },
    ...overrides,
  });
  /** Delivers what the outbox holds and waits for background work. */
  const settle = async () => {
    await auth.whenIdle();
    await auth.deliverMail();
  };
  return { auth, clock, stores, events, inbox, settle, idp, txt };
}

/** Registers an owner and returns its token response with its verified claims. */
export async function owner(auth: TenantAuth, email: string, tenantName?: string) {
  const result = await auth.register({ email, password: PASSWORD, ...(tenantName ? { tenantName } : {}) });
  return { ...result, claims: await auth.verifyAccessToken(result.accessToken) };
}

/** Invites `email` into the caller's tenant with `role`, accepts, and returns the new member's claims. */
export async function join(
  t: ReturnType<typeof setup>,
  inviter: AccessClaims,
  email: string,
  role: 'owner' | 'admin' | 'member',
) {
  // Inviting needs a verified email (docs/http-api.md, "Rules that change in 1.2 (closing holes found in 1.1)"): an owner fresh from registration verifies first.
  const me = await t.stores.users.findById(inviter.tenantId, inviter.userId);
  if (me && !me.emailVerified) await verify(t, me.email);
  await t.auth.createInvitation(inviter, { email, role });
  await t.settle();
  // Members join one after the other: listings are by time.
  t.clock.advance(1000);
  const result = await t.auth.acceptInvitation({
    token: t.inbox.token(email, '/accept-invitation'),
    password: PASSWORD,
  });
  return { ...result, claims: await t.auth.verifyAccessToken(result.accessToken) };
}

export async function failure(promise: Promise<unknown>): Promise<TenantAuthError> {
  try {
    await promise;
  } catch (err) {
    if (isTenantAuthError(err)) return err;
    throw err;
  }
  throw new Error('expected a TenantAuthError');
}

export async function code(promise: Promise<unknown>): Promise<TenantAuthErrorCode | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    if (isTenantAuthError(err)) return err.code;
    throw err;
  }
}

/** `field:code` of each field error of a `validation_failed`. */
export async function fieldCodes(promise: Promise<unknown>): Promise<string[]> {
  const err = await failure(promise);
  return (err.errors ?? []).map((e) => `${e.field}:${e.code}`);
}

/** Verifies `email` through the link registration sent to it. */
export async function verify(t: ReturnType<typeof setup>, email: string): Promise<void> {
  await t.settle();
  await t.auth.verifyEmail({ token: t.inbox.token(email, '/verify-email') });
}

// The second factor (docs/http-api.md, "Second factor: TOTP and recovery codes"): codes computed independently of otplib (RFC 4226/6238).

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function fromBase32(text: string): Buffer {
  let bits = '';
  for (const c of text.replace(/=+$/, '').toUpperCase())
    bits += BASE32.indexOf(c).toString(2).padStart(5, '0');
  const bytes: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(Number.parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** The six-digit TOTP code of a base32 secret at `now` (SHA-1, 30 s). */
export function totpCode(secret: string, now: Date): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(now.getTime() / 30_000)));
  const mac = createHmac('sha1', fromBase32(secret)).update(counter).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0xf;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(value).padStart(6, '0');
}

/** Enrols TOTP for a signed-in user (fresh claims): returns the secret and the recovery codes. */
export async function enrolTotp(
  auth: TenantAuth,
  claims: AccessClaims,
  now: () => Date,
): Promise<{ secret: string; recoveryCodes: string[] }> {
  const { secret } = await auth.setupTotp({ claims });
  const { recoveryCodes } = await auth.confirmTotp({ claims }, { code: totpCode(secret, now()) });
  return { secret, recoveryCodes: recoveryCodes ?? [] };
}

/** The `mfaToken` of the `mfa_required` or `mfa_setup_required` a promise rejects with. */
export async function mfaTokenOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    const token = (err as { extensions?: { mfaToken?: unknown } }).extensions?.mfaToken;
    if (typeof token === 'string') return token;
    throw err;
  }
  throw new Error('expected a second factor to be required');
}

/**
 * Verifies `domain` for the tenant of `claims` (its TXT record put in `t.txt`) and connects the fake
 * provider (with `enforce` when asked): what an owner does before its users sign in through SSO.
 */
export async function ssoTenant(
  t: ReturnType<typeof setup>,
  claims: AccessClaims,
  domain: string,
  options: { enforce?: boolean } = {},
): Promise<void> {
  const added = await t.auth.addDomain(claims, { domain });
  t.txt.set(added.verification.name, [[added.verification.value]]);
  await t.auth.verifyDomain(claims, domain);
  await t.auth.configureSso(claims, {
    issuer: 'https://idp.acme.test',
    clientId: 'acme',
    clientSecret: 'sso-client-secret-for-unit-tests',
    enforce: options.enforce ?? false,
  });
}

/** Starts and completes an SSO sign-in of `email` as the fake provider's next identity. */
export async function ssoSignIn(t: ReturnType<typeof setup>, email: string, returnTo?: string) {
  const started = await t.auth.startSso({ email, ...(returnTo ? { returnTo } : {}) });
  const state = t.idp.lastRequest?.state ?? '';
  return t.auth.completeSso({ stateCookie: started.stateCookie, params: { code: 'c', state } });
}
