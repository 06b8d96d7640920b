import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

/**
 * The recorded SCIM conversations of Microsoft Entra ID and Okta
 * (packages/tenant-auth-koa/test/fixtures/scim/{entra,okta}.json; their `format` says how to read them),
 * and the rules of replaying one: `{{name}}` bound to the id an earlier exchange created, and an answer
 * that must hold what the fixture expects. Shared by the replay through the pure SCIM modules (koa) and
 * the replay over HTTP against the reference server.
 */

/** One request of a directory and what the answer must hold. */
export interface ScimExchange {
  name: string;
  source: string;
  adapted?: string;
  request: { method: string; path: string; headers?: Record<string, string>; body?: unknown };
  response: { status: number | number[]; body?: unknown; bodyLacks?: string[] };
  binds?: string;
}

/** A directory's recorded conversation. */
export interface ScimConversation {
  directory: string;
  sources: { title: string }[];
  format: string[];
  tenant: { verifiedDomains: string[] };
  exchanges: ScimExchange[];
}

/** The conversation of `entra` or `okta`. */
export function scimConversation(name: 'entra' | 'okta'): ScimConversation {
  const url = new URL(`../packages/tenant-auth-koa/test/fixtures/scim/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as ScimConversation;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `{{name}}` in every string of `value`, replaced by the bound id. */
export function bindIds<T>(value: T, ids: ReadonlyMap<string, string>): T {
  if (typeof value === 'string') {
    return value.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
      const id = ids.get(name);
      if (id === undefined) throw new Error(`{{${name}}} is used before an exchange binds it.`);
      return id;
    }) as T;
  }
  if (Array.isArray(value)) return value.map((item) => bindIds(item, ids)) as T;
  if (isJsonObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, bindIds(item, ids)])) as T;
  }
  return value;
}

/** The fixture's matching rule: objects by the members named, arrays element by element. */
export function expectToHold(actual: unknown, expected: unknown, where: string): void {
  if (Array.isArray(expected)) {
    expect(Array.isArray(actual) ? actual.length : actual, `${where}: length`).toBe(expected.length);
    for (const [index, item] of expected.entries()) {
      expectToHold((actual as unknown[])[index], item, `${where}[${index}]`);
    }
  } else if (isJsonObject(expected)) {
    expect(isJsonObject(actual), `${where}: an object`).toBe(true);
    for (const [key, item] of Object.entries(expected)) {
      expectToHold((actual as Record<string, unknown>)[key], item, `${where}.${key}`);
    }
  } else {
    expect(actual, where).toEqual(expected);
  }
}

/**
 * Replays a conversation through `answer` (one request in, its status and parsed body out), checking
 * each answer as the fixture says, and returns the ids bound on the way.
 */
export async function replayScimConversation(
  recorded: ScimConversation,
  answer: (request: ScimExchange['request']) => Promise<{ status: number; body?: unknown }>,
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const exchange of recorded.exchanges) {
    const where = `${recorded.directory}: ${exchange.name}`;
    const request = bindIds(exchange.request, ids);
    const result = await answer(request);
    const statuses = [exchange.response.status].flat();
    expect(statuses, `${where}: status (answered ${JSON.stringify(result.body)})`).toContain(result.status);
    if (exchange.binds !== undefined) ids.set(exchange.binds, (result.body as { id: string }).id);
    if (exchange.response.body !== undefined && result.status !== 204) {
      expectToHold(result.body, bindIds(exchange.response.body, ids), where);
    }
    for (const member of exchange.response.bodyLacks ?? []) {
      expect(result.body, `${where}: without ${member}`).not.toHaveProperty(member);
    }
  }
  return ids;
}
