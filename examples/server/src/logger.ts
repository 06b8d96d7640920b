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

/** pino's number for `info`. */
const INFO_LEVEL = 30;

let isoMs = Number.NaN;
let isoText = '';

/**
 * pino's `timestamp` option: the time in ISO 8601 (as `pino.stdTimeFunctions.isoTime` writes it), made
 * once per millisecond rather than once per line (a busy server writes several lines a millisecond).
 *
 * @example pino({ timestamp: isoTime });
 */
export function isoTime(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoMs = now;
    isoText = `,"time":"${new Date(now).toISOString()}"`;
  }
  return isoText;
}

/** How long a log line may wait in the buffer before it is written anyway. */
const FLUSH_INTERVAL_MS = 250;

/**
 * About how many characters of lines are handed to the writer at once: sonic-boom's largest write
 * (16 KiB), so that a busy server makes one write (a thread-pool round trip) per 60 or so request lines.
 */
const BATCH_CHARACTERS = 16_384;

/**
 * Lines collected in memory and handed to `writer` in batches of about {@link BATCH_CHARACTERS}, and
 * whatever is pending at each `flush()`. The batching is here, in front of the writer, because
 * sonic-boom's own (`minLength`) measures everything it holds on every write: each line then cost a
 * copy and a UTF-8 count of the whole batch so far, a tenth of an authenticated read (BENCHMARKS.md).
 *
 * @example
 * const batch = lineBatch((chunk) => boom.write(chunk));
 * batch.write('{"msg":"a"}\n'); // held
 * batch.flush(); // written
 */
export function lineBatch(writer: (chunk: string) => void): { write(line: string): void; flush(): void } {
  let pending: string[] = [];
  let characters = 0;
  const flush = () => {
    if (pending.length === 0) return;
    const chunk = pending.length === 1 ? (pending[0] as string) : pending.join('');
    pending = [];
    characters = 0;
    writer(chunk);
  };
  return {
    write(line) {
      pending.push(line);
      characters += line.length;
      if (characters >= BATCH_CHARACTERS) flush();
    },
    flush,
  };
}

/**
 * Standard output, written asynchronously and in batches of about 16 KiB (at the latest every 250 ms):
 * a request never waits for its log line, and a busy server makes one write per batch, not one per
 * line (a write per line was a third of a request's time). Warnings and errors are not held back
 * ({@link createLogger} flushes after each). Call `flushSync()` before `process.exit`.
 *
 * @example
 * const destination = stdoutDestination();
 * const logger = createLogger({ level: 'info', destination });
 * process.on('SIGTERM', () => { destination.flushSync(); process.exit(0); });
 */
export function stdoutDestination(): pino.DestinationStream & { flush(): void; flushSync(): void } {
  // sonic-boom without a minimum length: it writes each batch it is handed (or queues it behind the write
  // in flight), retrying a busy pipe.
  const boom = pino.destination({ dest: 1, sync: false });
  const batch = lineBatch((chunk) => boom.write(chunk));
  setInterval(batch.flush, FLUSH_INTERVAL_MS).unref();
  return {
    write: batch.write,
    flush: batch.flush,
    flushSync() {
      batch.flush();
      boom.flushSync();
    },
  };
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
      timestamp: isoTime,
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

/** Characters a JSON string must escape (`"`, `\\`, control characters), and a few it need not. */
const NEEDS_ESCAPE = /["\\\p{Cc}]/u;

/** A string as JSON: quoted as it is when nothing in it needs escaping (most of what a log line holds). */
function jsonString(value: string): string {
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/** What pino keeps of a logger that {@link infoLineWriter} writes like it (pino exports these keys). */
interface PinoInternals {
  [key: symbol]: unknown;
}

/**
 * Writes `info` lines of string and number fields exactly as `logger.info(fields, msg)` would (pino's
 * level and time, the logger's bindings, the fields in order, the message), straight to the logger's
 * destination: for the line every request writes, where pino's general walk over the object (types,
 * serializers, escaping) was about a tenth of a request. Writes nothing while `info` is off. A value must
 * be a string or a finite number; anything richer goes through the logger itself.
 *
 * @example
 * const line = infoLineWriter(logger);
 * line({ event: 'request', status: 200, ms: 0.4 }, 'request');
 */
export function infoLineWriter(
  logger: Logger,
): (fields: Record<string, string | number>, msg: string) => void {
  const internals = logger as unknown as PinoInternals;
  const { symbols } = pino;
  const stream = internals[symbols.streamSym] as { write(line: string): unknown };
  const time = internals[symbols.timeSym] as () => string;
  const bindings = internals[symbols.chindingsSym] as string;
  const messageKey = JSON.stringify(internals[symbols.messageKeySym]);
  const formatters = internals[symbols.formattersSym] as { level(label: string, number: number): object };
  // `{"level":"info"`: the level as the logger's formatter writes it, without its closing brace.
  const head = JSON.stringify(formatters.level('info', INFO_LEVEL)).slice(0, -1);
  // `,"key":` of each field name seen, made once.
  const keys = new Map<string, string>();
  return (fields, msg) => {
    if (logger.levelVal > INFO_LEVEL) return;
    let line = `${head}${time()}${bindings}`;
    for (const key in fields) {
      let prefix = keys.get(key);
      if (prefix === undefined) {
        prefix = `,${JSON.stringify(key)}:`;
        keys.set(key, prefix);
      }
      const value = fields[key];
      line +=
        prefix +
        (typeof value === 'string' ? jsonString(value) : Number.isFinite(value) ? `${value}` : 'null');
    }
    stream.write(`${line},${messageKey}:${jsonString(msg)}}\n`);
  };
}
