/**
 * What tenant-auth logs through: pino-compatible (`logger.warn(obj, msg)`), so a pino logger can be
 * passed as is. Every package takes this one type.
 *
 * @example
 * import { pino } from 'pino';
 * const logger: Logger = pino();
 */
export interface Logger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

function line(level: string, obj: object, msg: string): string {
  const { err, ...rest } = obj as { err?: unknown };
  const error =
    err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : (err ?? undefined);
  return JSON.stringify({ level, msg, ...rest, ...(error === undefined ? {} : { err: error }) });
}

/**
 * The default logger: one JSON line per message on stderr.
 *
 * @example
 * consoleLogger.warn({ limiter: 'strict' }, 'rate-limit store failed');
 */
export const consoleLogger: Logger = {
  error: (obj, msg) => console.error(line('error', obj, msg)),
  warn: (obj, msg) => console.error(line('warn', obj, msg)),
  info: (obj, msg) => console.error(line('info', obj, msg)),
};
