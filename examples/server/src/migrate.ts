import { ConfigError, describeDatabase, parseConfig } from './config.js';
import { openDatabase } from './database.js';
import { createLogger } from './logger.js';

/** `pnpm migrate`: applies the pending migrations to the configured database and exits. */
async function main(): Promise<void> {
  let config: ReturnType<typeof parseConfig>;
  try {
    config = parseConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`tenant-auth migrate: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel });
  const db = await openDatabase(config.database, logger);
  try {
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
