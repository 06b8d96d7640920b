// The reference server as examples/server/src/main.ts composes it (parseConfig, createLogger, startServer),
// plus two control messages over the IPC channel:
// - {"type": "cleanup"} runs that server's own `auth.cleanup()` in its own process, as its 10-minute timer
//   would, and answers {"type": "cleaned", "sessions", "ms"};
// - {"type": "heap"} runs a full garbage collection (when started with --expose-gc) and answers
//   {"type": "heap", "heapUsed", "rss"}: what the JavaScript heap still holds, for the memory benchmark.
// Run with `node --import tsx` from examples/server.
import { parseConfig } from '../../examples/server/src/config.ts';
import { createLogger } from '../../examples/server/src/logger.ts';
import { startServer } from '../../examples/server/src/server.ts';

const config = parseConfig(process.env);
const logger = createLogger({ level: config.logLevel });
const server = await startServer(config, logger);
process.on('message', async (message) => {
  if (message?.type === 'heap') {
    globalThis.gc?.();
    const { heapUsed, rss } = process.memoryUsage();
    process.send({ type: 'heap', heapUsed, rss, collected: typeof globalThis.gc === 'function' });
    return;
  }
  if (message?.type !== 'cleanup') return;
  const started = performance.now();
  try {
    const { sessions } = await server.auth.cleanup();
    process.send({ type: 'cleaned', sessions, ms: performance.now() - started });
  } catch (err) {
    process.send({ type: 'cleanup-failed', message: String(err?.message ?? err) });
  }
});
const stop = () => server.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
