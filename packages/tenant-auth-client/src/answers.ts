import type { OperationId } from './contract.generated.js';

type Check = (data: unknown) => boolean;
type Fields = Record<string, unknown>;

const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string' && v !== '';
const isCount = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isCodes = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every(isString);

/** `{secret, otpauthUri}`: what a page needs to draw the QR code, and the key to type by hand. */
const isTotpSetup: Check = (d) =>
  isObject(d) && isString(d.secret) && isString(d.otpauthUri) && d.otpauthUri.startsWith('otpauth://totp/');

/** `{recoveryCodes}`: codes, or `null` (only a confirmation may keep the earlier ones). */
const hasRecoveryCodes =
  (nullable: boolean): Check =>
  (d) =>
    isObject(d) && (isCodes(d.recoveryCodes) || (nullable && d.recoveryCodes === null));

const isMe: Check = (d) =>
  isObject(d) &&
  isString(d.id) &&
  isString(d.email) &&
  isObject(d.mfa) &&
  typeof d.mfa.totp === 'boolean' &&
  isCount(d.mfa.passkeys) &&
  isCount(d.mfa.recoveryCodesRemaining);

/** `{sso}`: the connection a save answers (never `null` there). */
const hasSsoConnection: Check = (d) => isObject(d) && isObject(d.sso);

/** A line of the group-to-role mapping: a group's name and a role below owner. */
const isGroupRole = (v: unknown) =>
  isObject(v) && isString(v.group) && (v.role === 'admin' || v.role === 'member');
const isGroupRoles = (v: unknown) => Array.isArray(v) && v.every(isGroupRole);

/** `{token, createdAt, baseUrl}`: the SCIM token a page shows once, and where the directory sends it. */
const isCreatedScimToken: Check = (d) =>
  isObject(d) &&
  isString(d.token) &&
  d.token.startsWith('tas_') &&
  isString(d.createdAt) &&
  isString(d.baseUrl);

/** `{scim}`: the connection, with its mapping (the page draws its table from it). */
const hasScimSettings: Check = (d) =>
  isObject(d) &&
  isObject(d.scim) &&
  typeof d.scim.enabled === 'boolean' &&
  isString(d.scim.baseUrl) &&
  isGroupRoles(d.scim.groupRoles);

/** `{groupRoles}`: the mapping as saved. */
const hasGroupRoles: Check = (d) => isObject(d) && isGroupRoles(d.groupRoles);

const isSecurityPolicy: Check = (d) => isObject(d) && typeof d.requireMfa === 'boolean';

/**
 * @internal What the body of a success must hold, beyond a JSON object, for the operations whose answers
 * a page acts on (the token responses are checked by the session, in the mode's terms). An answer that
 * fails is an `http_error`, as a proxy's page would be, never a half-read value.
 */
export const EXPECTED_ANSWERS: { [K in OperationId]?: Check } = {
  setupTotp: isTotpSetup,
  confirmTotp: hasRecoveryCodes(true),
  regenerateRecoveryCodes: hasRecoveryCodes(false),
  getMe: isMe,
  getSecurityPolicy: isSecurityPolicy,
  setSecurityPolicy: isSecurityPolicy,
  configureSso: hasSsoConnection,
  createScimToken: isCreatedScimToken,
  getScim: hasScimSettings,
  setScimGroupRoles: hasGroupRoles,
};
