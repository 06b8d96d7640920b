import { TenantAuthAuditEvent } from './entities/audit-event.js';
import { TenantAuthOneTimeToken } from './entities/one-time-token.js';
import { TenantAuthOutboxMessage } from './entities/outbox-message.js';
import { TenantAuthSession } from './entities/session.js';
import { TenantAuthTenant } from './entities/tenant.js';
import { TenantAuthUser } from './entities/user.js';

/**
 * Every entity of tenant-auth, to spread into the application's own `entities` option.
 *
 * @example
 * const orm = await MikroORM.init({ entities: [...tenantAuthEntities, Book, Author], clientUrl });
 */
export const tenantAuthEntities = [
  TenantAuthTenant,
  TenantAuthUser,
  TenantAuthSession,
  TenantAuthOneTimeToken,
  TenantAuthOutboxMessage,
  TenantAuthAuditEvent,
] as const;
