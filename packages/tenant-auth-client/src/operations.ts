import { OPERATIONS, type OperationId, type OperationTypes } from './contract.generated.js';
import type { CallInput } from './transport.js';

/**
 * How a method of the client calls its operation, when it does nothing else: its arguments are the
 * operation's path parameters (in the order of the contract's path), then its body or its query as
 * `takes` says; it returns the answer, one field of it (`returns`), or nothing (`'void'`).
 */
interface MethodRule<K extends OperationId> {
  takes?: 'body' | 'query';
  returns?: 'void' | keyof OperationTypes[K]['response'];
}

/**
 * The methods of the client that are one operation of the contract, by operation id (the method's name).
 * The method and path of each come from `OPERATIONS`; the session-aware methods (sign-in, refresh,
 * logout, revoking the current session) are written out in client.ts.
 */
export const OPERATION_METHODS = {
  getMyTenant: {},
  getTenant: {},
  listSessions: { returns: 'sessions' },
  revokeSession: { returns: 'void' },
  listMembers: { returns: 'members' },
  changeMemberRole: { takes: 'body' },
  removeMember: { returns: 'void' },
  createInvitation: { takes: 'body', returns: 'invitation' },
  listInvitations: { returns: 'invitations' },
  revokeInvitation: { returns: 'void' },
  forgotPassword: { takes: 'body', returns: 'void' },
  resetPassword: { takes: 'body', returns: 'void' },
  changePassword: { takes: 'body', returns: 'void' },
  requestEmailVerification: { returns: 'void' },
  verifyEmail: { takes: 'body', returns: 'void' },
  changeEmail: { takes: 'body', returns: 'void' },
  confirmEmailChange: { takes: 'body', returns: 'void' },
  deleteAccount: { takes: 'body', returns: 'void' },
  listAuditEvents: { takes: 'query' },
  jwks: {},
  getMe: {},
  getSecurityPolicy: {},
  setSecurityPolicy: { takes: 'body' },
  listApiKeys: { returns: 'apiKeys' },
  createApiKey: { takes: 'body' },
  revokeApiKey: { returns: 'void' },
  listDomains: { returns: 'domains' },
  addDomain: { takes: 'body', returns: 'domain' },
  verifyDomain: { returns: 'domain' },
  removeDomain: { returns: 'void' },
  getSso: { returns: 'sso' },
  removeSso: { returns: 'void' },
  listWebhooks: { returns: 'webhooks' },
  createWebhook: { takes: 'body' },
  updateWebhook: { takes: 'body', returns: 'webhook' },
  deleteWebhook: { returns: 'void' },
  testWebhook: {},
  listWebhookDeliveries: { takes: 'query' },
  createScimToken: {},
  getScim: { returns: 'scim' },
  revokeScimToken: { returns: 'void' },
} as const satisfies { [K in OperationId]?: MethodRule<K> };

type Rules = typeof OPERATION_METHODS;
type MethodId = keyof Rules;
type Types<K extends MethodId> = OperationTypes[K];

/** The path parameters as arguments: one string each (every operation of the contract has at most one). */
type ParamArgs<K extends MethodId> = Types<K>['params'] extends undefined ? [] : [string];
type RestArgs<K extends MethodId> = Rules[K] extends { takes: 'body' }
  ? [body: Types<K>['body']]
  : Rules[K] extends { takes: 'query' }
    ? [query?: Types<K>['query']]
    : [];
type Args<K extends MethodId> = [...ParamArgs<K>, ...RestArgs<K>];
type Answer<K extends MethodId> = Rules[K] extends { returns: infer F extends keyof Types<K>['response'] }
  ? Types<K>['response'][F]
  : Types<K>['response'];

/** @internal The methods of {@link OPERATION_METHODS}, typed from the contract. */
export type OperationMethods = {
  [K in MethodId]: Rules[K] extends { returns: 'void' }
    ? (...args: Args<K>) => Promise<void>
    : (...args: Args<K>) => Promise<Answer<K>>;
};

/** @internal What the methods call: an operation with its input, answering its body. */
export type Call = <K extends OperationId>(
  operation: K,
  input: CallInput,
) => Promise<OperationTypes[K]['response']>;

/** The names of a path's `{param}` placeholders, in order. */
const paramNames = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);

/** @internal The methods of {@link OPERATION_METHODS} over `call`. */
export function operationMethods(call: Call): OperationMethods {
  const methods: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const [id, rule] of Object.entries(OPERATION_METHODS) as [MethodId, MethodRule<MethodId>][]) {
    const names = paramNames(OPERATIONS[id].path);
    methods[id] = async (...args) => {
      const params = names.length === 0 ? undefined : Object.fromEntries(names.map((n, i) => [n, args[i]]));
      const rest = args[names.length];
      const input: CallInput = { params };
      if (rule.takes === 'body') input.body = rest;
      if (rule.takes === 'query') input.query = rest ?? {};
      const data = await call(id, input);
      if (rule.returns === 'void') return undefined;
      return rule.returns === undefined ? data : (data as Record<string, unknown>)[rule.returns];
    };
  }
  return methods as OperationMethods;
}
