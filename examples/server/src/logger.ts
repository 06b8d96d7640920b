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

/** pino's number for `warn`: from here up, a line is flushed at once. */
const WARN_LEVEL = 40;

/** How long a log line may wait in the buffer before it is written anyway. */
const FLUSH_INTERVAL_MS = 250;

/**
 * Standard output, written asynchronously and in batches of about 4 KiB (at the latest every 250 ms):
 * a request never waits for its log line, and a busy server makes one write per batch, not one per
 * line (a write per line was a third of a request's time). Warnings and errors are not held back
 * ({@link createLogger} flushes after each). Call `flushSync()` before `process.exit`.
 *
 * @example
 * const destination = stdoutDestination();
 * const logger = createLogger({ level: 'info', destination });
 * process.on('SIGTERM', () => { destination.flushSync(); process.exit(0); });
 */
export function stdoutDestination(): pino.DestinationStream & { flushSync(): void } {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => destination.flush(), FLUSH_INTERVAL_MS).unref();
  return destination;
}

/**
 * The server's JSON logger: one object per line on stdout (or `destination`), sensitive paths redacted.
 * A warning or an error is flushed at once when the destination batches (an operator watching a failing
 * start-up, or a supervisor reacting to a warning, should not wait for the next batch).
 *
 * @example
 * const logger = createLogger({ level: 'info' });
 * logger.info({ event: 'login_succeeded', userId }, 'login');
 */
export function createLogger(options: { level: string; destination?: pino.DestinationStream }): Logger {
  const destination = options.destination ?? pino.destination({ dest: 1, sync: true });
  const flush = 'flush' in destination && typeof destination.flush === 'function' ? destination : undefined;
  return pino(
    {
      level: options.level,
      hooks: flush
        ? {
            logMethod(args, method, level) {
              method.apply(this, args);
              if (level >= WARN_LEVEL) (flush as { flush(): void }).flush();
            },
          }
        : {},
      base: { service: 'tenant-auth-server' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/**
 * A child of `logger` that skips its redaction: for lines built only from a fixed list of fields, none of
 * which can hold a secret (request lines, authentication events). pino walks every other line through the
 * wildcard paths of {@link REDACT_PATHS}, which cost a tenth of a request on the read path; those lines
 * keep it.
 *
 * @example app.use(requestLog(withoutRedaction(logger)));
 */
export function withoutRedaction(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [] } });
}
