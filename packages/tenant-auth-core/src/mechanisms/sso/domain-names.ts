import { parse } from 'tldts';
import { validationError } from '../../vocabulary/errors.js';

/** A host name as DNS allows it (RFC 1123 labels), lower case, at least two labels. */
const HOST_NAME =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** @internal The DNS name whose TXT record proves a domain. */
export const challengeName = (domain: string) => `_tenant-auth-challenge.${domain}`;

/** @internal The value the TXT record must hold. */
export const challengeValue = (token: string) => `tenant-auth-domain-verification=${token}`;

/**
 * @internal The domain when it is a lower-case host name at or below a registrable domain: never a
 * public suffix (ICANN or private section of the Public Suffix List, through tldts) nor an IP address.
 * Otherwise `validation_failed` (`domain`: `invalid_domain`).
 */
export function checkedDomain(value: unknown): string {
  const refuse = (message: string) => validationError([{ field: 'domain', code: 'invalid_domain', message }]);
  if (typeof value !== 'string' || !HOST_NAME.test(value))
    throw refuse('The domain must be a lower-case host name such as example.com.');
  const parsed = parse(value, { allowPrivateDomains: true });
  if (parsed.isIp || parsed.domain === null || parsed.hostname !== value)
    throw refuse('The domain is a public suffix or not a registrable name.');
  return value;
}

export { domainOf } from '../../vocabulary/email-domain.js';
