import type { Logger } from 'pino';
import { pino } from 'pino';

export type { Logger };

/**
 * Paths pino blanks out whatever is logged. The server never logs these on purpose; this is defence in
 * depth against a header or body finding its way into a log call.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'res.headers["set-cookie"]',
  'password',
  'passwordHash',
  'token',
  'accessToken',
  'refreshToken',
  'secret',
  '*.password',
  '*.passwordHash',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
  '*.secret',
  '*.authorization',
  '*.cookie',
  '*["set-cookie"]',
];

/**
 * The server's JSON logger: one object per line on stdout (or `destination`), sensitive paths redacted.
 *
 * @example
 * const logger = createLogger({ level: 'info' });
 * logger.info({ event: 'login_succeeded', userId }, 'login');
 */
export function createLogger(options: { level: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      base: { service: 'tenant-auth-server' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
