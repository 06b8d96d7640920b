import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ConfigError, type ServerConfig } from './config.js';
import { readDevelopmentFile, writeDevelopmentFile } from './development-file.js';
import type { Logger } from './logger.js';

/** The HMAC secrets the server signs with. */
export interface JwtSecrets {
  secret: string;
  refreshSecret: string;
}

/** File in the data folder holding the generated development secrets. */
export const SECRETS_FILE = 'jwt-secrets.json';

/** The secrets, and how to keep generated ones. */
export interface ResolvedSecrets extends JwtSecrets {
  /**
   * Writes generated development secrets to the data folder (once, mode 0600, with a warning). Called
   * after the configuration was composed and validated, so a refused configuration writes nothing.
   * Does nothing for configured or already kept secrets.
   */
  keep(): Promise<void>;
}

/**
 * The JWT secrets: from the configuration when set (always in production), otherwise the development
 * secrets kept in `<dataDir>/jwt-secrets.json`, or new ones generated with crypto random bytes (kept by
 * `keep()`). Reads only; writes nothing.
 *
 * @example
 * const secrets = await resolveSecrets(config, logger);
 * const auth = createAuth(config, { ...parts, refreshSecret: secrets.refreshSecret });
 * await secrets.keep();
 */
export async function resolveSecrets(config: ServerConfig, logger: Logger): Promise<ResolvedSecrets> {
  const { secret, refreshSecret } = config.jwt;
  const nothingToKeep = async () => {};
  if (secret !== undefined && refreshSecret !== undefined)
    return { secret, refreshSecret, keep: nothingToKeep };
  if (config.production) {
    // parseConfig refuses this already; fail closed if it is ever bypassed.
    throw new ConfigError([{ variable: 'JWT_SECRET', message: 'is required when NODE_ENV=production' }]);
  }
  const file = join(config.dataDir, SECRETS_FILE);
  const text = await readDevelopmentFile(file);
  if (text === undefined) {
    const generated: JwtSecrets = {
      secret: randomBytes(48).toString('base64url'),
      refreshSecret: randomBytes(48).toString('base64url'),
    };
    return {
      ...generated,
      async keep() {
        await writeDevelopmentFile(config.dataDir, file, `${JSON.stringify(generated, null, 2)}\n`);
        logger.warn(
          { file },
          'JWT_SECRET and JWT_REFRESH_SECRET are not set: generated development secrets and kept them in the data folder; set both in production',
        );
      },
    };
  }
  const stored = JSON.parse(text) as Partial<JwtSecrets>;
  if (
    typeof stored.secret !== 'string' ||
    typeof stored.refreshSecret !== 'string' ||
    stored.secret.length < 32 ||
    stored.refreshSecret.length < 32 ||
    stored.secret === stored.refreshSecret
  ) {
    throw new ConfigError([
      {
        variable: 'JWT_SECRET',
        message: `the development secrets in ${file} are unusable; delete the file to regenerate`,
      },
    ]);
  }
  logger.warn(
    { file },
    'JWT_SECRET and JWT_REFRESH_SECRET are not set: using the development secrets kept in the data folder; set both in production',
  );
  return { secret: stored.secret, refreshSecret: stored.refreshSecret, keep: nothingToKeep };
}
