import { describeDatabase, loadConfigOrExit } from './config.js';
import { createDatabase } from './database.js';
import { createLogger } from './logger.js';

/** `pnpm migrate`: applies the pending migrations to the configured database and exits. */
async function main(): Promise<void> {
  const config = loadConfigOrExit('tenant-auth migrate');
  const logger = createLogger({ level: config.logLevel });
  const db = createDatabase(config.database, { logger, production: config.production });
  try {
    await db.open();
    const applied = await db.migrate();
    logger.info(
      { applied },
      `migrations applied to ${describeDatabase(config.database)}: ${applied.length === 0 ? 'none pending' : applied.join(', ')}`,
    );
  } finally {
    await db.close();
  }
}

await main().catch((err: unknown) => {
  process.stderr.write(`tenant-auth migrate failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
