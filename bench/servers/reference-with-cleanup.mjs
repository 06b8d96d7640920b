// The reference server as examples/server/src/main.ts composes it (parseConfig, createLogger, startServer),
// plus one control message: {"type": "cleanup"} over the IPC channel runs that server's own
// `auth.cleanup()` in its own process, as its 10-minute timer would, and answers
// {"type": "cleaned", "sessions", "ms"}. Run with `node --import tsx` from examples/server.
import { parseConfig } from '../../examples/server/src/config.ts';
import { createLogger } from '../../examples/server/src/logger.ts';
import { startServer } from '../../examples/server/src/server.ts';

const config = parseConfig(process.env);
const logger = createLogger({ level: config.logLevel });
const server = await startServer(config, logger);
process.on('message', async (message) => {
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
