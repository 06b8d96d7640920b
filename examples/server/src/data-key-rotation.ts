import type { ResealCounts, ResealResult } from 'tenant-auth-core';
import { createMikroOrmStores } from 'tenant-auth-mikro-orm';
import { loadAccessKeys } from './access-keys.js';
import { createAuth } from './auth.js';
import type { ServerConfig } from './config.js';
import { createDatabase } from './database.js';
import { resolveEncryptionKey } from './encryption-key.js';
import type { Logger } from './logger.js';
import { resolveSecrets } from './secrets.js';

/**
 * `pnpm rotate-data-key`'s work: composes tenant-auth as the server does (`ENCRYPTION_KEY` seals,
 * `ENCRYPTION_KEY_PREVIOUS` opens), opens the configured database (applying pending migrations, as the
 * server does at start-up), and re-seals every stored sealed value with `ENCRYPTION_KEY` (`auth.resealStoredValues`: 500
 * rows per transaction, safe while the server serves on PostgreSQL). Sends no mail and starts no timer.
 *
 * @example
 * const result = await rotateDataKey(config, logger);
 * process.stdout.write(describeReseal(result));
 */
export async function rotateDataKey(config: ServerConfig, logger: Logger): Promise<ResealResult> {
  const secrets = await resolveSecrets(config, logger);
  const encryption = await resolveEncryptionKey(config, logger);
  const accessToken = await loadAccessKeys(config, secrets.secret);
  const database = createDatabase(config.database, { logger, production: config.production });
  const auth = createAuth(config, {
    stores: createMikroOrmStores(database.orm),
    accessToken,
    refreshSecret: secrets.refreshSecret,
    encryptionKey: encryption.key,
    rateLimitStore: undefined,
    onEvent: () => {},
    mailer: {
      send: () => Promise.reject(new Error('rotate-data-key sends no mail')),
    },
    logger,
  });
  await database.open();
  try {
    // As `pnpm start` does (exactly once among concurrent instances): the re-seal reads the current schema.
    await database.migrate();
    return await auth.resealStoredValues();
  } finally {
    await database.close();
  }
}

/** What each kind is called in the command's output. */
const KIND_NAMES: Record<Exclude<keyof ResealResult, 'unopenableKeyIds'>, string> = {
  totpSecrets: 'TOTP secrets',
  ssoSecrets: 'SSO client secrets',
  outboxPayloads: 'outbox payloads',
  webhookSecrets: 'webhook secrets',
};

/**
 * The command's report: a line per kind, then, when some values did not open, what to do about it.
 *
 * @example
 * describeReseal(result); // 'TOTP secrets: 3 re-sealed, 0 already current, 0 unopenable\n…'
 */
export function describeReseal(result: ResealResult): string {
  const lines = Object.entries(KIND_NAMES).map(([kind, name]) => {
    const c = result[kind as keyof typeof KIND_NAMES] as ResealCounts;
    return `${name}: ${c.resealed} re-sealed, ${c.current} already current, ${c.unopenable} unopenable`;
  });
  if (result.unopenableKeyIds.length > 0)
    lines.push(
      `Some values did not open with ENCRYPTION_KEY or ENCRYPTION_KEY_PREVIOUS: they name the data key(s) ${result.unopenableKeyIds.join(', ')}, which are not configured. They were left as they are. Add the key they were sealed with to ENCRYPTION_KEY_PREVIOUS and run again; keep ENCRYPTION_KEY_PREVIOUS until a run reports none.`,
    );
  return `${lines.join('\n')}\n`;
}
