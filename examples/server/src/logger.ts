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
 * whatever is pending at each `flush()`; `take()` hands the pending lines back instead. The batching is
 * here, in front of the writer, because sonic-boom's own (`minLength`) measures everything it holds on
 * every write: each line then cost a copy and a UTF-8 count of the whole batch so far, a tenth of an
 * authenticated read (BENCHMARKS.md).
 *
 * @example
 * const batch = lineBatch((chunk) => boom.write(chunk));
 * batch.write('{"msg":"a"}\n'); // held
 * batch.flush(); // written
 */
export function lineBatch(writer: (chunk: string) => void): {
  write(line: string): void;
  flush(): void;
  take(): string;
} {
  let pending: string[] = [];
  let characters = 0;
  const take = () => {
    if (pending.length === 0) return '';
    const chunk = pending.length === 1 ? (pending[0] as string) : pending.join('');
    pending = [];
    characters = 0;
    return chunk;
  };
  const flush = () => {
    const chunk = take();
    if (chunk !== '') writer(chunk);
  };
  return {
    write(line) {
      pending.push(line);
      characters += line.length;
      if (characters >= BATCH_CHARACTERS) flush();
    },
    flush,
    take,
  };
}

/**
 * Standard output, written asynchronously and in batches of about 16 KiB (at the latest every 250 ms):
 * a request never waits for its log line, and a busy server makes one write per batch, not one per
 * line (a write per line was a third of a request's time). Warnings and errors are not held back
 * ({@link createLogger} flushes after each). `flushSync()` writes what is held at once, before anything
 * else runs; it also runs when the process exits (a crash, or the event loop running out), so the last
 * lines are not lost. Call it before `process.exit` too: a batch on its way out asynchronously when the
 * process ends is not waited for.
 *
 * @example
 * const destination = stdoutDestination();
 * const logger = createLogger({ level: 'info', destination });
 * process.on('SIGTERM', () => { destination.flushSync(); process.exit(0); });
 */
export function stdoutDestination(): pino.DestinationStream & {
  flush(callback?: (err?: Error) => void): void;
  flushSync(): void;
} {
  // sonic-boom without a minimum length: it writes each batch it is handed (or queues it behind the write
  // in flight), retrying a busy pipe.
  const boom = pino.destination({ dest: 1, sync: false });
  const batch = lineBatch((chunk) => boom.write(chunk));
  setInterval(batch.flush, FLUSH_INTERVAL_MS).unref();
  // For the lines still held when everything must be written now: synchronous, with sonic-boom's handling
  // of a busy pipe and of partial writes.
  let now: pino.DestinationStream | undefined;
  const flushSync = () => {
    const held = batch.take();
    // What sonic-boom holds is older than what the batch holds: it goes first.
    boom.flushSync();
    if (held !== '') {
      now ??= pino.destination({ dest: 1, sync: true });
      now.write(held);
    }
  };
  process.on('exit', () => {
    try {
      flushSync();
    } catch {
      // Standard output is gone: nothing is left to write to.
    }
  });
  return {
    write: batch.write,
    flush(callback) {
      batch.flush();
      boom.flush(callback);
    },
    flushSync,
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

/**
 * A string as pino writes it (its `asString`): JSON, with `"` and `\\` escaped by hand in a short string, and
 * `JSON.stringify` for a long one or one with a control character.
 */
function pinoString(text: string): string {
  if (text.length > 100) return JSON.stringify(text);
  let result = '';
  let last = 0;
  let found = false;
  let point = 255;
  for (let i = 0; i < text.length && point >= 32; i++) {
    point = text.charCodeAt(i);
    if (point === 34 || point === 92) {
      result += `${text.slice(last, i)}\\`;
      last = i;
      found = true;
    }
  }
  result = found ? result + text.slice(last) : text;
  return point < 32 ? JSON.stringify(text) : `"${result}"`;
}

/** What pino keeps of a logger that {@link infoLineWriter} writes like it (pino exports these keys). */
interface PinoInternals {
  [key: symbol]: unknown;
}

/**
 * Writes `info` lines of string and number fields as `logger.info(fields, msg)` would (pino's level and
 * time, the logger's bindings, the fields in order, the message, each escaped as pino escapes it; an
 * `undefined` field left out), straight to the logger's destination: for the line every request writes,
 * where pino's general walk over the object (types, serializers, redaction, hooks) was about a tenth of a
 * request. Writes nothing while `info` is off. Whatever this does not do the way pino would, it leaves to
 * the logger itself: a field pino would serialise, redact or format (`serializers`, `redact`,
 * `formatters.log`), a logger with a `mixin`, a message prefix or a write hook, a destination that reads
 * metadata from each line (`pino.multistream`).
 *
 * @example
 * const line = infoLineWriter(logger);
 * line({ event: 'request', status: 200, ms: 0.4 }, 'request');
 */
export function infoLineWriter(
  logger: Logger,
): (fields: Record<string, string | number | undefined>, msg: string) => void {
  const internals = logger as unknown as PinoInternals;
  const byPino = (fields: Record<string, string | number | undefined>, msg: string) =>
    logger.info(fields, msg);
  // pino's own names for what it keeps (pino.symbols); a pino without one of them is written by pino itself.
  const names = [
    'streamSym',
    'formattersSym',
    'hooksSym',
    'mixinSym',
    'msgPrefixSym',
    'nestedKeySym',
    'needsMetadataGsym',
    'timeSym',
    'chindingsSym',
    'lsCacheSym',
    'endSym',
    'messageKeySym',
    'serializersSym',
    'stringifiersSym',
    'errorKeySym',
    'wildcardFirstSym',
  ] as const;
  const symbols = pino.symbols as unknown as Record<string, symbol | undefined>;
  if (names.some((name) => typeof symbols[name] !== 'symbol')) return byPino;
  const of = <T>(name: (typeof names)[number]) => internals[symbols[name] as symbol] as T;
  const stream = of<{ write(line: string): unknown } & PinoInternals>('streamSym');
  if (
    of<{ log?: unknown }>('formattersSym').log !== undefined ||
    of<unknown>('mixinSym') ||
    of<unknown>('msgPrefixSym') ||
    of<unknown>('nestedKeySym') ||
    of<{ streamWrite?: unknown } | undefined>('hooksSym')?.streamWrite !== undefined ||
    stream[symbols.needsMetadataGsym as symbol] === true
  ) {
    return byPino;
  }
  const time = of<() => string>('timeSym');
  const bindings = of<string>('chindingsSym');
  // `{"level":"info"`: the level as the logger writes it (its cache of level prefixes).
  const head = of<Record<number, string>>('lsCacheSym')[INFO_LEVEL] as string;
  const end = of<string>('endSym');
  const messageKey = of<string>('messageKeySym');
  const serializers = of<Record<string, unknown>>('serializersSym');
  const stringifiers = of<Record<string | symbol, unknown>>('stringifiersSym');
  const errorKey = of<string>('errorKeySym');
  const anyKey = stringifiers[symbols.wildcardFirstSym as symbol] !== undefined;
  // Whether pino would do more to a field than write it: serialise it, or redact it.
  const special = (key: string) =>
    anyKey ||
    serializers[key] !== undefined ||
    stringifiers[key] !== undefined ||
    (key === errorKey && serializers.err !== undefined);
  if (special(messageKey)) return byPino;
  // `,"key":` of each field name seen, made once; `null` for a name pino would treat specially.
  const keys = new Map<string, string | null>();
  return (fields, msg) => {
    if (logger.levelVal > INFO_LEVEL) return;
    let line = `${head}${time()}${bindings}`;
    for (const key in fields) {
      const value = fields[key];
      if (value === undefined) continue;
      let prefix = keys.get(key);
      if (prefix === undefined) {
        prefix = special(key) ? null : `,${pinoString(key)}:`;
        keys.set(key, prefix);
      }
      if (prefix === null) {
        byPino(fields, msg);
        return;
      }
      line +=
        prefix +
        (typeof value === 'string' ? pinoString(value) : Number.isFinite(value) ? `${value}` : 'null');
    }
    stream.write(`${line},"${messageKey}":${pinoString(msg)}${end}`);
  };
}
