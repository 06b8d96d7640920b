import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ConfigError, encryptionKeyOf, type ServerConfig } from './config.js';
import { readDevelopmentFile, writeDevelopmentFile } from './development-file.js';
import type { Logger } from './logger.js';

/** File in the data folder holding the generated development encryption key (base64url). */
export const ENCRYPTION_KEY_FILE = 'encryption-key';

/** The key that seals TOTP secrets and outbox payloads, and how to keep a generated one. */
export interface ResolvedEncryptionKey {
  key: Uint8Array;
  /** Writes a generated development key to the data folder (once, mode 0600, with a warning). */
  keep(): Promise<void>;
}

/**
 * `ENCRYPTION_KEY`: from the configuration when set (always in production), otherwise the development key
 * kept in `<dataDir>/encryption-key`, or a new one of 32 crypto random bytes (kept by `keep()`). Reads only.
 * Losing a generated key makes the TOTP secrets sealed with it unreadable: their users then need their
 * recovery codes.
 *
 * @example
 * const encryption = await resolveEncryptionKey(config, logger);
 * const auth = createAuth(config, { ...parts, encryptionKey: encryption.key });
 * await encryption.keep();
 */
export async function resolveEncryptionKey(
  config: ServerConfig,
  logger: Logger,
): Promise<ResolvedEncryptionKey> {
  const configured = config.mfa.encryptionKey;
  if (configured !== undefined) return { key: configured, keep: async () => {} };
  if (config.production) {
    // parseConfig refuses this already; fail closed if it is ever bypassed.
    throw new ConfigError([{ variable: 'ENCRYPTION_KEY', message: 'is required when NODE_ENV=production' }]);
  }
  const file = join(config.dataDir, ENCRYPTION_KEY_FILE);
  const text = await readDevelopmentFile(file);
  if (text === undefined) {
    const generated = randomBytes(32);
    return {
      key: new Uint8Array(generated),
      async keep() {
        await writeDevelopmentFile(config.dataDir, file, `${generated.toString('base64url')}\n`);
        logger.warn(
          { file },
          'ENCRYPTION_KEY is not set: generated a development key and kept it in the data folder; set it in production',
        );
      },
    };
  }
  const key = encryptionKeyOf(text);
  if (key === undefined) {
    throw new ConfigError([
      {
        variable: 'ENCRYPTION_KEY',
        message: `the development key in ${file} is unusable; restore it (deleting it makes TOTP secrets sealed with it unreadable)`,
      },
    ]);
  }
  return { key, keep: async () => {} };
}
