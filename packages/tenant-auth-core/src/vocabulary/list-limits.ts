/**
 * @internal The most rows a listing answers (a hard bound, documented on each method of `TenantAuth`): a
 * tenant or a user with more gets the first ones in the listing's order. Stores are asked for no more
 * (the `limit` option of their list methods), and core cuts what a store that ignores it returns.
 */
export const LIST_LIMITS = {
  /** `listMembers`: the oldest members. */
  members: 1000,
  /** `listInvitations`: the newest pending invitations. */
  invitations: 1000,
  /** `listSessions`: the newest active sessions of the caller. */
  sessions: 100,
  /** `listApiKeys`: the oldest keys that are not revoked. */
  apiKeys: 1000,
} as const;
