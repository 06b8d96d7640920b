import type { OperationId, OperationTypes } from './contract.generated.js';
import type { FetchLike } from './options.js';
import { createTransport } from './transport.js';

const configurationError = (message: string) => new TypeError(`createApiKeyClient: ${message}`);

/**
 * An operation an API key may call (API 1.2, "API keys"): the tenant, its members, invitations and audit
 * log, and health.
 *
 * @example
 * const operation: ApiKeyOperationId = 'listMembers';
 */
export type ApiKeyOperationId = Extract<
  OperationId,
  | 'getMyTenant'
  | 'getTenant'
  | 'health'
  | 'listMembers'
  | 'changeMemberRole'
  | 'removeMember'
  | 'createInvitation'
  | 'listInvitations'
  | 'revokeInvitation'
  | 'listAuditEvents'
>;

/** The same list at run time; `satisfies` ties each to an operation of the contract. */
const KEY_OPERATIONS: ReadonlySet<string> = new Set([
  'getMyTenant',
  'getTenant',
  'health',
  'listMembers',
  'changeMemberRole',
  'removeMember',
  'createInvitation',
  'listInvitations',
  'revokeInvitation',
  'listAuditEvents',
] as const satisfies readonly ApiKeyOperationId[]);

/**
 * Options of {@link createApiKeyClient}.
 *
 * @example
 * const options: ApiKeyClientOptions = { baseUrl: 'https://api.example.com/api/v1', apiKey: process.env.TENANT_AUTH_API_KEY! };
 */
export interface ApiKeyClientOptions {
  /** The API's base URL, prefix included: `https://api.example.com/api/v1`. */
  baseUrl: string;
  /** The secret of an API key (`tak_…`), as `POST /tenants/me/api-keys` answered it once. */
  apiKey: string;
  /** Default: the platform's `fetch`. */
  fetch?: FetchLike;
}

/**
 * A client for a back-end or a script that authenticates with an API key: every request carries
 * `Authorization: Bearer tak_…` (never a cookie), nothing is refreshed or stored. Errors are
 * `TenantAuthClientError`s, as with {@link createTenantAuthClient}: `invalid_token` for a revoked, expired
 * or unknown key, `forbidden` for a route or a role the key does not have.
 *
 * @example
 * const client = createApiKeyClient({ baseUrl: 'https://api.example.com/api/v1', apiKey: process.env.TENANT_AUTH_API_KEY! });
 * const { members } = await client.request('listMembers', {});
 */
export interface ApiKeyClient {
  /** Calls an operation a key may call with its path parameters, query and body; answers its body. */
  request<K extends ApiKeyOperationId>(
    operation: K,
    input: {
      params?: OperationTypes[K]['params'];
      query?: OperationTypes[K]['query'];
      body?: OperationTypes[K]['body'];
    },
  ): Promise<OperationTypes[K]['response']>;
}

/**
 * Creates a client that authenticates with an API key (Node, or any server-side `fetch`). Never use one in
 * a browser: whoever can read the page can read the key.
 *
 * @example
 * import { createApiKeyClient } from 'tenant-auth-client';
 *
 * const client = createApiKeyClient({ baseUrl: 'https://api.example.com/api/v1', apiKey: process.env.TENANT_AUTH_API_KEY! });
 * const tenant = await client.request('getMyTenant', {});
 * await client.request('createInvitation', { body: { email: 'new.hire@example.com', role: 'member' } });
 */
export function createApiKeyClient(options: ApiKeyClientOptions): ApiKeyClient {
  if (typeof options?.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl)) {
    throw configurationError('baseUrl must be an http(s) URL');
  }
  if (typeof options.apiKey !== 'string' || !/^tak_[A-Za-z0-9_-]{43}$/.test(options.apiKey)) {
    throw configurationError('apiKey must be the secret of an API key (tak_ and 43 characters)');
  }
  const transport = createTransport({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    mode: 'bearer',
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    clock: { now: () => Date.now() },
  });
  const headers = { authorization: `Bearer ${options.apiKey}` };
  const credentials = async () => headers;
  return {
    async request(operation, input) {
      if (!KEY_OPERATIONS.has(operation)) throw configurationError(`${operation} is not for API keys`);
      // A degraded `/health` (503 with its JSON body) is an answer, as with createTenantAuthClient.
      const accept = operation === 'health' ? (response: Response) => response.status === 503 : undefined;
      return (await transport.call(operation, input, { credentials, ...(accept ? { accept } : {}) })).data;
    },
  };
}
