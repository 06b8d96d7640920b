import { loadConfigOrExit } from './config.js';
import { describeReseal, rotateDataKey } from './data-key-rotation.js';
import { createLogger } from './logger.js';

/**
 * `pnpm rotate-data-key`: re-seals every stored sealed value with `ENCRYPTION_KEY`, prints the counts per
 * kind and exits; exit code 1 when some value opened with no configured key (left as it was).
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit('tenant-auth rotate-data-key');
  const logger = createLogger({ level: config.logLevel });
  const result = await rotateDataKey(config, logger);
  process.stdout.write(describeReseal(result));
  if (result.unopenableKeyIds.length > 0) process.exitCode = 1;
}

await main().catch((err: unknown) => {
  process.stderr.write(
    `tenant-auth rotate-data-key failed: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
