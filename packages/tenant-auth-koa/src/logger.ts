/**
 * The logging the Koa package needs: pino-compatible (`logger.error(obj, msg)`), so a pino logger
 * can be passed as is.
 *
 * @example
 * import pino from 'pino';
 * const logger: TenantAuthLogger = pino();
 */
export interface TenantAuthLogger {
  error(obj: object, msg?: string): void;
  warn?(obj: object, msg?: string): void;
}

/**
 * The default logger: one JSON line on stderr per error.
 *
 * @example
 * consoleLogger.error({ err: new Error('boom') }, 'unexpected error');
 */
export const consoleLogger: TenantAuthLogger = {
  error(obj, msg) {
    const { err, ...rest } = obj as { err?: unknown };
    const error = err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : err;
    console.error(JSON.stringify({ level: 'error', msg, ...rest, err: error }));
  },
};
