import type { Clock } from 'tenant-auth-core';
import { parseConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { type RunningServer, startServer } from '../../src/server.js';

/** Random, as production requires (generated once with crypto.randomBytes(32).toString('base64url')). */
export const TEST_SECRETS = {
  JWT_SECRET: 'q3Z8vJx1Wm4pT0bL6yN2rK9sD5hF7gC3aE1uI8oV4wX',
  JWT_REFRESH_SECRET: 'Hn2Lk7Qw9Ep4Rt1Yu6Io3Pa8Sd5Fg0Jh2Kl9Zx7Cv4Bm',
  ENCRYPTION_KEY: 'W9cQeF2da1jLD8OOWHzwKglR98V0FdmsYxux0olmio0',
};

export interface TestServer extends RunningServer {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** Every log line the server wrote. */
  logs: string[];
}

/**
 * Starts the assembled server in this process on an ephemeral port, logging into memory. Defaults:
 * in-memory PGlite, BCRYPT_COST=4, generous rate limits (the rate-limit tests lower them).
 */
export async function startTestServer(
  env: Record<string, string> = {},
  overrides: { clock?: Clock } = {},
): Promise<TestServer> {
  const config = parseConfig({
    PORT: '0',
    DATABASE_URL: 'memory:',
    BCRYPT_COST: '4',
    RATE_LIMIT_AUTH_MAX: '10000',
    RATE_LIMIT_NETWORK_MAX: '100000',
    RATE_LIMIT_MAX: '10000',
    LOGIN_FAILURES_PER_ACCOUNT: '10000',
    LOG_LEVEL: 'info',
    SHUTDOWN_TIMEOUT_SECONDS: '5',
    ...TEST_SECRETS,
    ...env,
  });
  const logs: string[] = [];
  const logger = createLogger({
    level: config.logLevel,
    destination: { write: (line: string) => logs.push(line) },
  });
  const server = await startServer(config, logger, overrides);
  return { ...server, baseUrl: `http://127.0.0.1:${server.port}`, logs };
}
