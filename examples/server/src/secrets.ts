import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, type ServerConfig } from './config.js';
import type { Logger } from './logger.js';

/** The HMAC secrets the server signs with. */
export interface JwtSecrets {
  secret: string;
  refreshSecret: string;
}

/** File in the data folder holding the generated development secrets. */
export const SECRETS_FILE = 'jwt-secrets.json';

/**
 * The JWT secrets: from the configuration when set (always in production), otherwise generated once
 * with crypto random bytes and kept in `<dataDir>/jwt-secrets.json` (mode 0600), with a warning.
 *
 * @example
 * const { secret, refreshSecret } = await resolveSecrets(config, logger);
 */
export async function resolveSecrets(config: ServerConfig, logger: Logger): Promise<JwtSecrets> {
  const { secret, refreshSecret } = config.jwt;
  if (secret !== undefined && refreshSecret !== undefined) return { secret, refreshSecret };
  if (config.production) {
    // parseConfig refuses this already; fail closed if it is ever bypassed.
    throw new ConfigError([{ variable: 'JWT_SECRET', message: 'is required when NODE_ENV=production' }]);
  }
  const file = join(config.dataDir, SECRETS_FILE);
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const generated: JwtSecrets = {
    secret: randomBytes(48).toString('base64url'),
    refreshSecret: randomBytes(48).toString('base64url'),
  };
  try {
    await writeFile(file, `${JSON.stringify(generated, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    logger.warn(
      { file },
      'JWT_SECRET and JWT_REFRESH_SECRET are not set: generated development secrets and kept them in the data folder; set both in production',
    );
    return generated;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const stored = JSON.parse(await readFile(file, 'utf8')) as Partial<JwtSecrets>;
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
  if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600);
  logger.warn(
    { file },
    'JWT_SECRET and JWT_REFRESH_SECRET are not set: using the development secrets kept in the data folder; set both in production',
  );
  return { secret: stored.secret, refreshSecret: stored.refreshSecret };
}
