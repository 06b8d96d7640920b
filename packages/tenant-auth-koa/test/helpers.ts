import type { AddressInfo } from 'node:net';
import Koa, { type Middleware } from 'koa';
import {
  createMemoryStores,
  createTenantAuth,
  type TenantAuth,
  type TenantAuthOptions,
} from 'tenant-auth-core';
import { ManualClock } from 'tenant-auth-core/testing';
import type { RegisterResponseJson, TokenResponseJson } from '../src/contract.js';

export const ACCESS_SECRET = 'access-secret-access-secret-access-secret-0123';
export const REFRESH_SECRET = 'refresh-secret-refresh-secret-refresh-secret-99';
export const PASSWORD = 'Correct-Horse-Battery-42';
export const ORIGIN = 'http://localhost:5173';

export interface TestAuth {
  auth: TenantAuth;
  clock: ManualClock;
}

/** Logs nothing: tests that look at logs pass their own. */
export const quiet = { error: () => {}, warn: () => {}, info: () => {} };

/**
 * A real `createTenantAuth` on in-memory stores, bcrypt cost 4, a manual clock starting now, and rate
 * limiting off (the rate-limit tests turn it on).
 */
export function createTestAuth(overrides: Partial<TenantAuthOptions> = {}): TestAuth {
  // Whole seconds: JWT times are seconds, so lifetimes come out exact (see the report on refreshExpiresIn).
  const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
  const auth = createTenantAuth({
    stores: createMemoryStores(),
    accessToken: { secret: ACCESS_SECRET },
    refreshSecret: REFRESH_SECRET,
    passwordHashing: { cost: 4 },
    rateLimit: false,
    logger: quiet,
    clock,
    ...overrides,
  });
  return { auth, clock };
}

export interface Running {
  url: string;
  app: Koa;
  close(): Promise<void>;
}

/** Koa's middleware type, for code outside this package (the recipes) that cannot resolve `koa` itself. */
export type { Middleware };

/** A Koa application of these middleware, in order, listening as {@link listen} does. */
export function serve(...middleware: Middleware[]): Promise<Running> {
  const app = new Koa();
  for (const m of middleware) app.use(m);
  return listen(app);
}

/** Listens on 127.0.0.1 on an ephemeral port. */
export async function listen(app: Koa): Promise<Running> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

export interface ParsedCookie {
  name: string;
  value: string;
  attributes: Record<string, string | true>;
  raw: string;
}

/** Parses every Set-Cookie header of a response (attribute names lower-cased). */
export function setCookies(res: Response): ParsedCookie[] {
  return res.headers.getSetCookie().map((raw) => {
    const [pair = '', ...attrs] = raw.split(';').map((p) => p.trim());
    const eq = pair.indexOf('=');
    const attributes: Record<string, string | true> = {};
    for (const attr of attrs) {
      const i = attr.indexOf('=');
      if (i === -1) attributes[attr.toLowerCase()] = true;
      else attributes[attr.slice(0, i).toLowerCase()] = attr.slice(i + 1);
    }
    return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attributes, raw };
  });
}

export function cookieNamed(res: Response, name: string): ParsedCookie | undefined {
  return setCookies(res).find((c) => c.name === name);
}

/** JSON POST helper. */
export function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

let emailCounter = 0;
export function uniqueEmail(): string {
  emailCounter++;
  return `user${emailCounter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** A token response; registration's also carries the tenant. */
export type TokenBody = TokenResponseJson & Partial<Pick<RegisterResponseJson, 'tenant'>>;

// biome-ignore lint/suspicious/noExplicitAny: tests inspect response bodies freely
export type Json = any;

/** The body of a response as loosely typed JSON. */
export function json(res: Response): Promise<Json> {
  return res.json() as Promise<Json>;
}
