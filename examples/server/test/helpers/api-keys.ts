import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { expect } from 'vitest';
import { api, PASSWORD, uniqueEmail } from './http.js';
import type { TestInbox } from './smtp.js';

/** The body of `POST /tenants/me/api-keys`. */
export interface CreatedKeyJson {
  apiKey: {
    id: string;
    name: string;
    role: string;
    prefix: string;
    createdAt: string;
    createdBy: string | null;
    expiresAt: string | null;
    lastUsedAt: string | null;
  };
  secret: string;
}

/** A registered owner whose address is verified (API 1.2: creating a key needs it), just authenticated. */
export async function verifiedOwner(url: string, inbox: TestInbox, headers: Record<string, string> = {}) {
  const email = uniqueEmail('keys');
  let r: { status: number; body: TokenResponseJson } | undefined;
  const verifyToken = await inbox.tokenFrom(email, '/verify-email', async () => {
    r = await api<TokenResponseJson>(url, '/auth/register', { body: { email, password: PASSWORD }, headers });
  });
  expect(r?.status).toBe(201);
  expect((await api(url, '/auth/email/verify', { body: { token: verifyToken }, headers })).status).toBe(204);
  const body = r?.body as TokenResponseJson;
  return { ...body, email, token: body.accessToken };
}

/** Creates a key with the caller's access token; expects 201. */
export async function createKey(
  url: string,
  token: string,
  body: { name?: string; role: string; expiresInDays?: number },
  headers: Record<string, string> = {},
): Promise<CreatedKeyJson> {
  const r = await api<CreatedKeyJson>(url, '/tenants/me/api-keys', {
    token,
    body: { name: 'CI deploys', ...body },
    headers,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}
