import { createHmac, randomBytes } from 'node:crypto';
import { parse as parseQuery } from 'node:querystring';
import {
  applyStringChange,
  BODY_FIELDS,
  type BodySpec,
  ENDPOINTS,
  type Endpoint,
  type IdSlot,
  type PathSpec,
  type Placement,
  type RawBody,
  type RequestSpec,
  type TokenRef,
  type TokenType,
  type Who,
} from './fuzz-arbitraries.js';
import { idParam, routeOf, selectedToken } from './fuzz-checks.js';
import { type RawRequest, type RawResponse, rawRequest } from './raw-http.js';
import { SecretSet } from './secret-scan.js';
import { TEST_SECRETS } from './test-server.js';

/**
 * The fuzzer's model of the server's state, and the translation of request specs into bytes.
 *
 * Two identities, A and B, each the owner of its own tenant, are registered at start. For each it keeps
 * a live session (re-created by a login whenever a request may have ended it), a refresh token that
 * was rotated away, and the tokens of a session that was logged out. Every token the server issues and
 * every token built here (tampered, forged, garbage) is recorded with what it is, so the checks can
 * tell which requests carried a real credential and which must not succeed.
 */

/** What a token sent by the fuzzer is, as far as the contract says. */
export interface TokenInfo {
  /** Whose material it is (`undefined`: nobody's, or a new registration's). */
  who?: Who;
  type?: TokenType;
  /** `genuine`: issued by the server, or signed with its own key (may be accepted). */
  origin: 'issued' | 'forged-right' | 'forged-other' | 'tampered' | 'garbage';
  /**
   * Whether the contract forbids any success with it where an access token is required, on the
   * refresh route, and on the logout route: `true` means that route must not answer 2xx when this is
   * the token it reads; `false` means it may.
   */
  rejectedBy: { access: boolean; refresh: boolean; logout: boolean };
}

/** A session, as far as the fuzzer knows it. */
export interface SessionRecord {
  userId: string;
  who?: Who;
  /** Its refresh tokens, oldest first; the access tokens issued with them. */
  refresh: string[];
  access: string[];
  /** Ended by a logout, a revocation or a revoke-all that succeeded: it must never refresh again. */
  ended: boolean;
}

interface TokenPair {
  access: string;
  refresh: string;
  sessionId: string;
}

export interface Identity {
  who: Who;
  email: string;
  password: string;
  userId: string;
  tenantId: string;
  live: TokenPair;
  /** The live session may have been ended by the last request: log in again before using it. */
  dirty: boolean;
  /** The refresh token of a session before it was rotated (its access token stays valid). */
  rotated: TokenPair;
  /** Tokens of a session that was logged out. */
  loggedOut: TokenPair;
  /** Every session id the fuzzer has seen for this identity. */
  sessionIds: string[];
}

/** The bytes to send, and what they mean. */
export interface Resolved {
  spec: RequestSpec;
  request: RawRequest;
  /** The tokens put into the request, with what they are. */
  tokens: { placement: Placement; value: string; info: TokenInfo }[];
  /** Identities whose real credentials (a token of theirs, their password) the request carries. */
  credentialed: Set<Who>;
  /** Identities whose token material the request carries at all (real or damaged). */
  touched: Set<Who>;
  /** The body as sent, decoded as UTF-8 (for the oracles). */
  bodyText: string;
}

const BASE64URL = (s: string | Buffer) => Buffer.from(s).toString('base64url');
const ISSUER = 'tenant-auth';

/** Random letters from `alphabet` (for emails and passwords that share no 3-letter part). */
function letters(alphabet: string, n: number): string {
  const bytes = randomBytes(n);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}

/** The tenant name of fresh registrations; passwords are drawn from letters it does not contain. */
const TENANT_NAME = 'Acme Fuzz Works';

/** A fresh email whose parts share nothing with {@link freshPassword}'s. */
export function freshEmail(): string {
  return `u${letters('abcdefghijklm', 10)}@example.com`;
}

/** A password the default policy accepts and that cannot appear in ordinary text by chance. */
export function freshPassword(): string {
  return `Q${letters('nopqrtuvxyz', 12)}#${letters('0123456789', 4)}!`;
}

/** Signs a JWT (HS256/HS512, or `alg: none` when `key` is null). Only for forging tokens in tests. */
export function signJwt(header: Record<string, unknown>, payload: unknown, key: string | null): string {
  const h = BASE64URL(JSON.stringify(header));
  const p = BASE64URL(JSON.stringify(payload) ?? 'null');
  if (key === null) return `${h}.${p}.`;
  const alg = header.alg === 'HS512' ? 'sha512' : 'sha256';
  return `${h}.${p}.${createHmac(alg, key).update(`${h}.${p}`).digest('base64url')}`;
}

function isTokenResponse(
  body: unknown,
): body is { accessToken: string; refreshToken: string; user: { id: string }; session: { id: string } } {
  const b = body as Record<string, Record<string, unknown> | undefined> | undefined;
  return (
    typeof b === 'object' &&
    b !== null &&
    typeof b.accessToken === 'string' &&
    typeof b.refreshToken === 'string' &&
    typeof b.user?.id === 'string' &&
    typeof b.session?.id === 'string'
  );
}

const UNSAFE = (method: string) => !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());

export class World {
  readonly identities = {} as Record<Who, Identity>;
  /** Every password, token and refresh hash the run has seen: nothing may echo them. */
  readonly secrets = new SecretSet();
  /** What each token value sent or received is. */
  readonly tokenInfo = new Map<string, TokenInfo>();
  /** Tokens issued by the server (token responses and cookies). */
  readonly issued = new Set<string>();
  /** Logins the world did by itself to revive a live session. */
  relogins = 0;
  /** Every session the fuzzer has seen a token of: whose, its refresh tokens, and whether it was ended. */
  readonly sessions = new Map<string, SessionRecord>();
  /** The session of each issued token. */
  readonly tokenSession = new Map<string, string>();

  /** The first `401 invalid_credentials` body: every other must be identical (the contract says so). */
  invalidCredentials: string | undefined;

  constructor(readonly baseUrl: string) {}

  /** Registers A and B and prepares their rotated and logged-out sessions. */
  async setup(): Promise<void> {
    for (const who of ['A', 'B'] as const) this.identities[who] = await this.createIdentity(who);
  }

  private async createIdentity(who: Who): Promise<Identity> {
    const email = freshEmail();
    const password = freshPassword();
    this.secrets.addPassword(password);
    const reg = await this.json('POST', '/api/v1/auth/register', {
      email,
      password,
      tenantName: `Tenant ${who}`,
    });
    if (reg.status !== 201 || !isTokenResponse(reg.json)) {
      throw new Error(`fuzz setup: registering ${who} answered ${reg.status} ${reg.text}`);
    }
    const body = reg.json as { user: { id: string; tenantId: string } } & Parameters<World['recordPair']>[0];
    const live = this.recordPair(body, who);
    const identity: Identity = {
      who,
      email,
      password,
      userId: body.user.id,
      tenantId: body.user.tenantId,
      live,
      dirty: false,
      rotated: live,
      loggedOut: live,
      sessionIds: [live.sessionId],
    };
    // A session whose first refresh token was rotated away: `rotated.refresh` is now an ancestor.
    const forRotation = await this.login(identity);
    const rotatedOnce = await this.json('POST', '/api/v1/auth/refresh', {
      refreshToken: forRotation.refresh,
    });
    if (rotatedOnce.status !== 200 || !isTokenResponse(rotatedOnce.json)) {
      throw new Error(`fuzz setup: refresh for ${who} answered ${rotatedOnce.status}`);
    }
    this.recordPair(rotatedOnce.json, who);
    identity.rotated = forRotation;
    // A session that was logged out.
    const forLogout = await this.login(identity);
    const out = await rawRequest(this.baseUrl, {
      method: 'POST',
      path: '/api/v1/auth/logout',
      headers: { authorization: `Bearer ${forLogout.access}` },
    });
    if (out.status !== 204) throw new Error(`fuzz setup: logout for ${who} answered ${out.status}`);
    identity.loggedOut = forLogout;
    this.endSession(forLogout.sessionId);
    return identity;
  }

  private json(method: string, path: string, body: unknown): Promise<RawResponse> {
    return rawRequest(this.baseUrl, {
      method,
      path,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify(body)),
    });
  }

  private async login(identity: Identity): Promise<TokenPair> {
    const r = await this.json('POST', '/api/v1/auth/login', {
      email: identity.email,
      password: identity.password,
    });
    if (r.status !== 200 || !isTokenResponse(r.json)) {
      throw new Error(`fuzz: login of ${identity.who} answered ${r.status} ${r.text.slice(0, 300)}`);
    }
    const pair = this.recordPair(r.json, identity.who);
    identity.sessionIds.push(pair.sessionId);
    return pair;
  }

  /** Records the tokens of a token response as issued (and as secrets). */
  private recordPair(
    body: { accessToken: string; refreshToken: string; session: { id: string }; user: { id: string } },
    who: Who | undefined,
  ): TokenPair {
    const session = this.sessions.get(body.session.id) ?? {
      userId: body.user.id,
      ...(who ? { who } : {}),
      refresh: [],
      access: [],
      ended: false,
    };
    this.sessions.set(body.session.id, session);
    if (!session.refresh.includes(body.refreshToken)) session.refresh.push(body.refreshToken);
    session.access.push(body.accessToken);
    this.tokenSession.set(body.accessToken, body.session.id);
    this.tokenSession.set(body.refreshToken, body.session.id);
    for (const [value, type] of [
      [body.accessToken, 'access'],
      [body.refreshToken, 'refresh'],
    ] as const) {
      this.issued.add(value);
      this.secrets.addToken(value);
      this.tokenInfo.set(value, {
        ...(who ? { who } : {}),
        type,
        origin: 'issued',
        // A refresh token of an ended session stays refused, even if (wrongly) handed out again.
        rejectedBy: {
          access: type === 'refresh',
          refresh: type === 'access' || session.ended,
          logout: false,
        },
      });
    }
    return { access: body.accessToken, refresh: body.refreshToken, sessionId: body.session.id };
  }

  /** The live session of `who`, logging in again first when a request may have ended it. */
  async live(who: Who): Promise<TokenPair> {
    const identity = this.identities[who];
    if (identity.dirty) {
      this.relogins += 1;
      try {
        identity.live = await this.login(identity);
      } catch {
        // The account may be gone or its password changed (the 1.1 routes do that): a new one.
        this.identities[who] = await this.createIdentity(who);
        return this.identities[who].live;
      }
      identity.dirty = false;
    }
    return identity.live;
  }

  /** A session the server said it ended: none of its refresh tokens may ever refresh again. */
  endSession(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    session.ended = true;
    for (const token of session.refresh) {
      const info = this.tokenInfo.get(token);
      if (info) info.rejectedBy = { ...info.rejectedBy, refresh: true };
    }
  }

  /** The newest refresh token (and its access token) of an ended session of `who`, if any. */
  private endedPair(who: Who): TokenPair | undefined {
    const ended = [...this.sessions.entries()].filter(([, s]) => s.who === who && s.ended);
    const [sessionId, session] = ended.at(-1) ?? [];
    const refresh = session?.refresh.at(-1);
    const access = session?.access.at(-1);
    return sessionId && refresh && access ? { access, refresh, sessionId } : undefined;
  }

  // -------------------------------------------------------------------------------------------------
  // Tokens

  private async tokenValue(ref: TokenRef): Promise<{ value: string; info: TokenInfo }> {
    switch (ref.kind) {
      case 'garbage':
        return {
          value: ref.value,
          info: this.tokenInfo.get(ref.value) ?? {
            origin: 'garbage',
            rejectedBy: { access: true, refresh: true, logout: true },
          },
        };
      case 'issued': {
        const identity = this.identities[ref.who];
        const pair =
          ref.state === 'live'
            ? await this.live(ref.who)
            : ref.state === 'rotated'
              ? identity.rotated
              : ref.state === 'ended'
                ? (this.endedPair(ref.who) ?? identity.loggedOut)
                : identity.loggedOut;
        const value = pair[ref.type];
        // The rotated refresh token is within the grace period early in the run and a replay after it.
        return { value, info: this.tokenInfo.get(value) as TokenInfo };
      }
      case 'tampered': {
        const live = await this.live(ref.who);
        const token = live[ref.type];
        const other = this.identities[ref.who === 'A' ? 'B' : 'A'].live[ref.type];
        const [h = '', p = '', s = ''] = token.split('.');
        const mid = Math.floor(s.length / 2);
        const flipped = `${s.slice(0, mid)}${s[mid] === 'A' ? 'B' : 'A'}${s.slice(mid + 1)}`;
        const value = {
          flipSignatureChar: `${h}.${p}.${flipped}`,
          dropSignature: `${h}.${p}.`,
          otherPayload: `${h}.${other.split('.')[1]}.${s}`,
          truncate: token.slice(0, -5),
          upperCase: token.toUpperCase(),
          extraDot: `${token}.`,
          padding: `${token}=`,
          innerSpace: `${h}.${p} .${s}`,
        }[ref.how];
        // Base64url padding may or may not be accepted by the JWT library: no claim either way.
        const sure = ref.how !== 'padding';
        return {
          value,
          info: {
            who: ref.who,
            type: ref.type,
            origin: 'tampered',
            rejectedBy: { access: sure, refresh: sure, logout: sure },
          },
        };
      }
      case 'forged':
        return this.forge(ref);
    }
  }

  private async forge(
    ref: Extract<TokenRef, { kind: 'forged' }>,
  ): Promise<{ value: string; info: TokenInfo }> {
    const identity = this.identities[ref.who];
    const other = this.identities[ref.who === 'A' ? 'B' : 'A'];
    const live = await this.live(ref.who);
    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = {
      tid: identity.tenantId,
      sid: live.sessionId,
      token_type: ref.type,
      sub: identity.userId,
      iss: ISSUER,
      aud: ISSUER,
      iat: now,
      exp: now + 900,
      jti: BASE64URL(randomBytes(16)),
    };
    const c = ref.claims;
    if (c.op === 'otherTenant') claims.tid = other.tenantId;
    if (c.op === 'expired') Object.assign(claims, { iat: now - 2000, exp: now - 1000 });
    if (c.op === 'future') Object.assign(claims, { iat: now + 100_000, exp: now + 200_000 });
    if (c.op === 'delete') delete claims[c.claim];
    if (c.op === 'set')
      Object.defineProperty(claims, c.claim, { value: c.value, enumerable: true, writable: true });
    const typ = (ref.type === 'access') !== (ref.header === 'typSwapped') ? 'at+jwt' : 'refresh+jwt';
    const header: Record<string, unknown> = { alg: ref.header === 'algHS512' ? 'HS512' : 'HS256', typ };
    if (ref.header === 'kid') header.kid = '../../../etc/passwd';
    const own = ref.type === 'access' ? TEST_SECRETS.JWT_SECRET : TEST_SECRETS.JWT_REFRESH_SECRET;
    const swapped = ref.type === 'access' ? TEST_SECRETS.JWT_REFRESH_SECRET : TEST_SECRETS.JWT_SECRET;
    let key: string | null = {
      right: own,
      swapped,
      wrong: 'an-attacker-secret-0123456789abcdef!',
      none: null,
    }[ref.key];
    if (key === null) header.alg = 'none';
    if (ref.header === 'jwk') {
      // An embedded key the token signs itself with: must never be trusted.
      key = 'attacker-key-0123456789abcdef-0123456789';
      header.jwk = { kty: 'oct', k: BASE64URL(key) };
    }
    const value = signJwt(header, claims, key);
    const surelyBad =
      ref.key === 'wrong' || ref.key === 'none' || ref.header === 'algHS512' || ref.header === 'jwk';
    // A refresh token the server did not issue is never stored, so it can never be rotated.
    const refreshBad =
      surelyBad || ref.type === 'refresh' || ref.header === 'typSwapped' || ref.key !== 'right';
    return {
      value,
      info: {
        who: ref.who,
        type: ref.type,
        origin: ref.key === 'right' && !surelyBad ? 'forged-right' : 'forged-other',
        rejectedBy: { access: surelyBad, refresh: refreshBad, logout: surelyBad },
      },
    };
  }

  // -------------------------------------------------------------------------------------------------
  // Requests

  /** The identity whose resources a valid request names: the owner of the first token placed. */
  private ownerOf(spec: RequestSpec): Who {
    const first = spec.auth.find((p) => p.token.kind !== 'garbage');
    return first && first.token.kind !== 'garbage' ? first.token.who : spec.as;
  }

  private async idValue(slot: IdSlot, spec: RequestSpec): Promise<string> {
    const owner = this.ownerOf(spec);
    const ref = spec.path.id;
    if (ref.kind === 'literal') return ref.segment;
    const whose = ref.kind === 'other' ? (owner === 'A' ? 'B' : 'A') : owner;
    const identity = this.identities[whose];
    switch (slot) {
      case 'tenantId':
        return identity.tenantId;
      case 'userId':
        return identity.userId;
      case 'invitationId':
        return '01a203c5-9098-7b7d-93c8-42848f5dd4d7';
      case 'sessionId': {
        if (ref.kind === 'ownOld') return identity.sessionIds[0] ?? identity.live.sessionId;
        return ref.kind === 'other' ? identity.live.sessionId : (await this.live(whose)).sessionId;
      }
    }
  }

  private async path(spec: RequestSpec, e: Endpoint): Promise<string> {
    const segments: string[] = [];
    for (const s of e.segments) {
      if (typeof s === 'string') segments.push(s);
      else {
        const raw = await this.idValue(s.id, spec);
        segments.push(spell(raw, spec.path, spec.path.id.kind === 'literal'));
      }
    }
    return changePath(e.root ? '' : '/api/v1', segments, spec.path);
  }

  private bodyOf(e: Endpoint, who: Who): Record<string, unknown> {
    const identity = this.identities[who];
    const password = freshPassword();
    const bodies: Record<string, () => Record<string, unknown>> = {
      register: () => {
        this.secrets.addPassword(password);
        return { email: freshEmail(), password, tenantName: TENANT_NAME, deviceInfo: 'fuzz device' };
      },
      login: () => ({ email: identity.email, password: identity.password, deviceInfo: 'fuzz login' }),
      refresh: () => ({}),
      patchMember: () => ({ role: 'member' }),
      invite: () => ({ email: freshEmail(), role: 'member' }),
      accept: () => ({ token: BASE64URL(randomBytes(32)), password, deviceInfo: 'fuzz' }),
      forgot: () => ({ email: identity.email }),
      reset: () => ({ token: BASE64URL(randomBytes(32)), password }),
      changePassword: () => ({ currentPassword: identity.password, newPassword: password }),
      token: () => ({ token: BASE64URL(randomBytes(32)) }),
      changeEmail: () => ({ newEmail: freshEmail(), password: identity.password }),
      password: () => ({ password: identity.password }),
    };
    return e.body ? (bodies[e.body]?.() ?? {}) : {};
  }

  /** Turns a spec into the bytes to send. */
  async resolve(spec: RequestSpec): Promise<Resolved> {
    const e = ENDPOINTS[spec.endpoint] as Endpoint;
    const method = spec.method ?? e.method;
    const tokens: Resolved['tokens'] = [];
    const headers: Record<string, string | string[]> = {};
    const cookies: string[] = [];
    let bodyToken: string | undefined;
    const authorization: string[] = [];
    for (const placement of spec.auth) {
      const { value, info } = await this.tokenValue(placement.token);
      tokens.push({ placement, value, info });
      // Remembered, so that the checks know what a token read back from a header or cookie is.
      if (!this.tokenInfo.has(value)) this.tokenInfo.set(value, info);
      if (placement.where === 'header') {
        const line = headerSafe(placement.shape.replaceAll('{t}', value));
        authorization.push(line);
        if (placement.twice) authorization.push(line);
      } else if (placement.where === 'cookie') {
        const v = headerSafe(value);
        const formatted = {
          plain: v,
          quoted: `"${v}"`,
          encoded: encodeURIComponent(v),
          spaced: ` ${v}`,
        }[placement.format];
        cookies.push(`${placement.name}=${formatted}`);
      } else {
        bodyToken = value;
      }
    }
    if (authorization.length === 1) headers.authorization = authorization[0] as string;
    if (authorization.length > 1) headers.authorization = authorization;
    cookies.push(...spec.cookies.map(headerSafe));
    if (cookies.length > 0) headers.cookie = cookies.join('; ');
    if (spec.origin.origin !== undefined) headers.origin = headerSafe(spec.origin.origin);
    if (spec.origin.referer !== undefined) headers.referer = headerSafe(spec.origin.referer);
    for (const [name, value] of spec.headers) headers[name] = headerSafe(value);

    const owner = this.ownerOf(spec);
    const base = this.bodyOf(e, owner);
    if (bodyToken !== undefined) base.refreshToken = bodyToken;
    const body = encodeBody(spec.body, base, e.body ? BODY_FIELDS[e.body] : []);
    const type =
      spec.contentType === undefined
        ? body === undefined
          ? undefined
          : 'application/json'
        : spec.contentType;
    if (type !== undefined && type !== null) headers['content-type'] = headerSafe(type);

    const path = (await this.path(spec, e)) + queryOf(spec, e);
    const bodyText = body?.toString('utf8') ?? '';
    const credentialed = new Set<Who>();
    const touched = new Set<Who>();
    for (const t of tokens) {
      if (t.info.who === undefined) continue;
      touched.add(t.info.who);
      if (t.info.origin === 'issued') credentialed.add(t.info.who);
      // A token signed with the server's own keys may carry either identity's claims.
      if (t.info.origin === 'forged-right' || t.info.origin === 'forged-other') {
        credentialed.add('A');
        credentialed.add('B');
      }
    }
    for (const who of ['A', 'B'] as const) {
      if (bodyText.includes(this.identities[who].password)) credentialed.add(who);
    }
    return {
      spec,
      request: { method, path, headers, ...(body === undefined ? {} : { body }) },
      tokens,
      credentialed,
      touched,
      bodyText,
    };
  }

  /** Learns from a response: tokens issued, live sessions renewed or possibly ended. */
  observe(resolved: Resolved, res: RawResponse): void {
    const body = res.json;
    let renewed: Who | undefined;
    if (res.status >= 200 && res.status < 300 && isTokenResponse(body)) {
      const who = (['A', 'B'] as const).find((w) => this.identities[w].userId === body.user.id);
      const pair = this.recordPair(body, who);
      if (who) {
        this.identities[who].live = pair;
        this.identities[who].dirty = false;
        this.identities[who].sessionIds.push(pair.sessionId);
        renewed = who;
      }
    }
    for (const raw of [res.headers['set-cookie'] ?? []].flat()) {
      const value = /^[^=]*=([^;]*)/.exec(raw)?.[1];
      if (value) {
        this.issued.add(value);
        this.secrets.addToken(value);
      }
    }
    if (res.status >= 200 && res.status < 300) {
      for (const sessionId of endedBy(resolved, this)) this.endSession(sessionId);
    }
    if (UNSAFE(resolved.request.method)) {
      for (const who of resolved.touched) if (who !== renewed) this.identities[who].dirty = true;
      // Logging in, changing a password or deleting an account with the password in the body.
      for (const who of resolved.credentialed) if (who !== renewed) this.identities[who].dirty = true;
    }
  }
}

/**
 * The sessions a successful request ended, as the contract says: a logout ends the session of the token
 * it read, `DELETE /sessions/:id` the session named, `DELETE /sessions` every session of the caller
 * (but its own with `?except=current`). Only what is certain: tokens the server issued.
 */
export function endedBy(resolved: Resolved, world: World): string[] {
  const { method, path } = resolved.request;
  const route = routeOf(method, path);
  if (route?.version !== '1.0') return [];
  const template = `${route.method} ${route.segments.map((x) => (typeof x === 'string' ? x : ':')).join('/')}`;
  const readSession = (kind: 'access' | 'logout') => {
    const selected = selectedToken(resolved, kind, world);
    return 'token' in selected ? world.tokenSession.get(selected.token) : undefined;
  };
  if (template === 'POST auth/logout') {
    const id = readSession('logout');
    return id ? [id] : [];
  }
  if (template === 'DELETE sessions/:') {
    const id = idParam(path)?.toLowerCase();
    return id && world.sessions.has(id) ? [id] : [];
  }
  if (template === 'DELETE sessions') {
    const current = readSession('access');
    const userId = current ? world.sessions.get(current)?.userId : undefined;
    if (!current || !userId) return [];
    const query = path.includes('?') ? parseQuery(path.slice(path.indexOf('?') + 1).split('#')[0] ?? '') : {};
    const keep = query.except === 'current' ? current : undefined;
    return [...world.sessions.entries()]
      .filter(([id, s]) => s.userId === userId && id !== keep)
      .map(([id]) => id);
  }
  return [];
}

/** Header values Node's client refuses (controls other than tab, code points above 0xff) become `?`. */
export function headerSafe(value: string): string {
  return value.replace(/[^\t\u0020-\u007e\u0080-\u00ff]/g, '?');
}

function spell(id: string, path: PathSpec, literal: boolean): string {
  if (literal) return id;
  const pct = (s: string) =>
    Array.from(Buffer.from(s, 'utf8'), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  switch (path.spelling) {
    case 'plain':
      return id;
    case 'upper':
      return id.toUpperCase();
    case 'mixed':
      return Array.from(id, (ch, i) => (i % 2 ? ch.toUpperCase() : ch)).join('');
    case 'braces':
      return `%7B${id}%7D`;
    case 'urn':
      return `urn:uuid:${id}`;
    case 'noDashes':
      return id.replaceAll('-', '');
    case 'percentAll':
      return pct(id);
    case 'percentDash':
      return id.replaceAll('-', '%2D');
    case 'doubleEncoded':
      return pct(id).replaceAll('%', '%25');
    case 'trailingSpace':
      return `${id}%20`;
    case 'trailingNul':
      return `${id}%00`;
    case 'trailingGarbage':
      return `${id}x`;
    case 'truncated':
      return id.slice(0, -1);
  }
}

function changePath(prefix: string, segments: string[], path: PathSpec): string {
  const rest = segments.join('/');
  const change = path.change;
  if (typeof change === 'object') return `${prefix}/${rest}/${'z'.repeat(change.long)}`;
  switch (change) {
    case 'none':
      return `${prefix}/${rest}`;
    case 'trailingSlash':
      return `${prefix}/${rest}/`;
    case 'doubleSlash':
      return `${prefix}//${rest}`;
    case 'upperPrefix':
      return `${prefix.toUpperCase()}/${rest}`;
    case 'upperRoute':
      return `${prefix}/${rest.toUpperCase()}`;
    case 'dotSegment':
      return `${prefix}/./${rest}`;
    case 'dotDot':
      return `${prefix}/x/../${rest}`;
    case 'encodedSlash':
      return `${prefix}/${segments.join('%2F')}`;
    case 'encodedRoute':
      return `${prefix}/${rest.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`)}`;
    case 'extraSegment':
      return `${prefix}/${rest}/extra`;
    case 'semicolon':
      return `${prefix}/${rest};jsessionid=x`;
    case 'hash':
      return `${prefix}/${rest}#frag`;
    case 'latin1':
      return `${prefix}/${rest}\u00e9\u00ff`;
    case 'noPrefix':
      return `/${rest}`;
  }
}

function queryOf(spec: RequestSpec, e: Endpoint): string {
  const q = spec.query ?? e.query ?? '';
  return q === '' ? '' : `?${q}`;
}

/** Builds the valid body, applies the change, and encodes it. `undefined`: no body. */
export function encodeBody(
  spec: BodySpec,
  base: Record<string, unknown>,
  fields: readonly string[],
): Buffer | undefined {
  if (spec.kind === 'none') return undefined;
  if (spec.kind === 'raw') return rawBytes(spec.raw, base);
  const change = spec.change;
  let value: unknown = base;
  let text: string | undefined;
  switch (change.op) {
    case 'none':
      break;
    case 'set':
      Object.defineProperty(base, change.key, { value: change.value, enumerable: true, writable: true });
      break;
    case 'change': {
      const current = base[change.key];
      base[change.key] = applyStringChange(typeof current === 'string' ? current : '', change.how);
      break;
    }
    case 'delete':
      delete base[change.key];
      break;
    case 'whole':
      value = change.value;
      break;
    case 'forbiddenKey': {
      let target: Record<string, unknown> = base;
      for (let i = 0; i < change.depth; i++) {
        const next: Record<string, unknown> = {};
        target[fields[i % Math.max(fields.length, 1)] ?? 'x'] = next;
        target = next;
      }
      Object.defineProperty(target, change.key, { value: { admin: true }, enumerable: true });
      break;
    }
    case 'duplicateKey': {
      const json = JSON.stringify(base);
      const extra = `${JSON.stringify(change.key)}:${JSON.stringify(change.value) ?? 'null'}`;
      text = json === '{}' ? `{${extra}}` : `${json.slice(0, -1)},${extra}}`;
      break;
    }
  }
  text ??= JSON.stringify(value) ?? 'null';
  switch (spec.encoding) {
    case 'utf8':
      return Buffer.from(text, 'utf8');
    case 'bom':
      return Buffer.from(`\ufeff${text}`, 'utf8');
    case 'utf16le':
      return Buffer.from(text, 'utf16le');
    case 'latin1':
      return Buffer.from(text, 'latin1');
  }
}

function rawBytes(raw: RawBody, base: Record<string, unknown>): Buffer {
  const valid = JSON.stringify(base);
  switch (raw.kind) {
    case 'bytes':
      return Buffer.from(raw.bytes);
    case 'text':
      return Buffer.from(raw.text, 'utf8');
    case 'template': {
      const t: Record<typeof raw.which, () => string | Buffer> = {
        truncated: () => valid.slice(0, Math.max(1, valid.length - 3)),
        trailingComma: () => `${valid.slice(0, -1)},}`,
        comment: () => `/* c */${valid}`,
        singleQuotes: () => valid.replaceAll('"', "'"),
        nan: () => '{"email":NaN,"password":Infinity}',
        hugeNumber: () => `{"email":1${'0'.repeat(400)},"password":-1e999999}`,
        deepArray: () => `${'['.repeat(7000)}${']'.repeat(7000)}`,
        deepObject: () => `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`,
        twoObjects: () => `${valid}\n${valid}`,
        tooLarge: () => JSON.stringify({ ...base, deviceInfo: 'x'.repeat(17 * 1024) }),
        justUnder: () => JSON.stringify({ ...base, pad: 'x'.repeat(16 * 1024 - valid.length - 20) }),
        scalar: () => '"just a string"',
        empty: () => '',
        whitespace: () => ' \n\t ',
        form: () => 'email=a%40example.com&password=x',
        escapedNul: () => `${valid.slice(0, -1)}${valid === '{}' ? '' : ','}"x":"\\u0000"}`,
        loneSurrogateEscape: () => valid.replace(/"([^"]*)"(?=,|})/, '"\\ud800$1"'),
        invalidUtf8: () =>
          Buffer.concat([Buffer.from(valid.slice(0, -1)), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('}')]),
      };
      const out = t[raw.which]();
      return typeof out === 'string' ? Buffer.from(out, 'utf8') : out;
    }
  }
}
