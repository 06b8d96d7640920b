import type { Context } from 'koa';

/**
 * @internal How much of a refused (too large) body is read and thrown away, and for how long, before the
 * `413` is sent. A client is still writing its body when the server decides; a server that answers and
 * closes at once makes the client's next write fail (EPIPE, ECONNRESET), and most clients then report that
 * failure instead of the answer. Reading the rest first, within these bounds, lets the answer arrive; past
 * them the answer goes at once and the connection is closed (what nginx's lingering close does too).
 */
export const DISCARD_LIMIT = { bytes: 4 * 1024 * 1024, ms: 10_000 } as const;

/**
 * @internal How many refused bodies this process reads and throws away at once. Each drain holds a
 * connection for up to {@link DISCARD_LIMIT}; without a cap, a client could open many such connections
 * and keep the server reading for them. Beyond it the `413` goes at once with `Connection: close`, the
 * body unread (the answer may then be lost to a client still writing: the price of the bound).
 */
export const MAX_CONCURRENT_DRAINS = 32;
let drains = 0;

/**
 * @internal Reads what is left of a refused body and throws it away, within {@link DISCARD_LIMIT}, so the
 * answer that follows reaches a client that is still writing. Past the bound (or when the declared length
 * is already past it, or {@link MAX_CONCURRENT_DRAINS} are under way) the response says
 * `Connection: close` and the rest is never read.
 */
export async function discardRest(ctx: Context): Promise<void> {
  const req = ctx.req;
  if (req.complete || req.destroyed) return;
  if (Number(ctx.get('content-length')) > DISCARD_LIMIT.bytes || drains >= MAX_CONCURRENT_DRAINS) {
    ctx.set('Connection', 'close');
    return;
  }
  // A Content-Encoding pipes the request into a decompressor, which the parser stopped reading.
  req.unpipe();
  drains++;
  try {
    await readAndDiscard(ctx);
  } finally {
    drains--;
  }
}

/** Reads the rest of the request and throws it away, until its end or past {@link DISCARD_LIMIT}. */
function readAndDiscard(ctx: Context): Promise<void> {
  const req = ctx.req;
  return new Promise<void>((resolve) => {
    let seen = 0;
    const stop = (whole: boolean) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onEnd);
      req.off('error', onEnd);
      if (!whole) {
        req.pause();
        ctx.set('Connection', 'close');
      }
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DISCARD_LIMIT.bytes) stop(false);
    };
    const onEnd = () => stop(true);
    const timer = setTimeout(() => stop(false), DISCARD_LIMIT.ms);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onEnd);
    req.once('error', onEnd);
    req.resume();
  });
}
