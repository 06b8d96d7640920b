import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * A body over the limit (16 KiB) must get an answer the client reads: `413 payload_too_large`, not a
 * reset connection. A client sending a large body is still writing when the server decides; a server
 * that answers and closes at once makes the client's next write fail (EPIPE, ECONNRESET), and most
 * clients then report that failure, not the answer. So the server reads and discards the rest of the
 * body, up to a bound, before it answers. These tests talk raw TCP to the real server: the client
 * writes the body in pieces, as it arrives over a network, and reads whatever comes back meanwhile.
 */

interface RawExchange {
  /** Everything the server sent, as text. */
  received: string;
  /** The first error of a write or read (EPIPE, ECONNRESET), if any. */
  error: NodeJS.ErrnoException | undefined;
  /** Body bytes the client wrote. */
  written: number;
}

interface LargeBody {
  /** Extra header lines, each ending in \r\n. */
  head?: string;
  /** Sent as `Content-Length`, or chunked when `undefined`. */
  declaredLength?: number;
  /** Bytes of body to write. */
  bytes: number;
  /** Body bytes per write, and the pause between writes: the pace of a network. */
  piece?: number;
  pauseMs?: number;
}

/**
 * Opens a TCP connection, sends a POST head, then writes the body piece by piece; resolves once the
 * whole body is written and a whole response read, or the connection fails or closes.
 */
function sendLargeBody(
  port: number,
  path: string,
  body: LargeBody,
  timeoutMs = 20_000,
): Promise<RawExchange> {
  const { bytes, piece = 32 * 1024, pauseMs = 2 } = body;
  const chunked = body.declaredLength === undefined;
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let error: NodeJS.ErrnoException | undefined;
    let written = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ received, error, written });
    };
    const timer = setTimeout(finish, timeoutMs);
    const responseComplete = () => {
      const head = received.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(received.slice(0, head))?.[1];
      return (
        head !== -1 && length !== undefined && Buffer.byteLength(received.slice(head + 4)) >= Number(length)
      );
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (written >= bytes && responseComplete()) finish();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error ??= err;
      finish();
    });
    socket.on('close', finish);
    const data = Buffer.alloc(piece, 'a');
    const writeNext = () => {
      if (done) return;
      if (written >= bytes) {
        if (chunked) socket.write('0\r\n\r\n');
        if (responseComplete()) finish();
        return;
      }
      const part = data.subarray(0, Math.min(piece, bytes - written));
      written += part.length;
      const framed = chunked
        ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')])
        : part;
      socket.write(framed, (err) => {
        if (err) {
          error ??= err;
          finish();
        } else setTimeout(writeNext, pauseMs);
      });
    };
    socket.once('connect', () => {
      const length = chunked
        ? 'Transfer-Encoding: chunked\r\n'
        : `Content-Length: ${body.declaredLength}\r\n`;
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n${body.head ?? ''}${length}\r\n`,
      );
      writeNext();
    });
  });
}

function expectPayloadTooLarge(exchange: RawExchange): void {
  const { received, error, written } = exchange;
  expect(received, `nothing read; the connection failed with ${error?.code} after ${written} bytes`).toMatch(
    /^HTTP\/1\.1 413 Payload Too Large\r\n/,
  );
  expect(received).toMatch(/\r\ncontent-type: application\/problem\+json/i);
  const body = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
  expect(body).toMatchObject({ type: 'about:blank', status: 413, code: 'payload_too_large' });
}

const MB = 1024 * 1024;

describe('a request body over the limit, on a raw socket', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it.each([
    ['a keep-alive request', ''],
    ['a request that asks to close the connection', 'Connection: close\r\n'],
  ])('answers 413 to a 1 MB login body the client is still writing: %s', async (_, head) => {
    const exchange = await sendLargeBody(server.port, '/api/v1/auth/login', {
      head,
      declaredLength: MB,
      bytes: MB,
    });
    expect(exchange.error, `the connection failed with ${exchange.error?.code}`).toBeUndefined();
    expect(exchange.written).toBe(MB);
    expectPayloadTooLarge(exchange);
  });

  it('answers 413 to a 1 MB chunked body (no Content-Length), read to its end', async () => {
    const exchange = await sendLargeBody(server.port, '/api/v1/auth/login', { bytes: MB });
    expect(exchange.error, `the connection failed with ${exchange.error?.code}`).toBeUndefined();
    expectPayloadTooLarge(exchange);
    // Read to the end, the connection stays usable.
    expect(exchange.received).not.toMatch(/\r\nconnection: close/i);
  });

  it('stops reading a chunked body past the bound (4 MiB): 413, and the connection closes', async () => {
    const exchange = await sendLargeBody(server.port, '/api/v1/auth/login', {
      bytes: 8 * MB,
      piece: 64 * 1024,
    });
    expectPayloadTooLarge(exchange);
    expect(exchange.received).toMatch(/\r\nconnection: close/i);
  });

  it('does not read a body declared far over the bound: 413 at once, and the connection closes', async () => {
    const started = performance.now();
    // Declares 1 GB, sends only what the test needs: the answer comes without waiting for the rest.
    const exchange = await sendLargeBody(server.port, '/api/v1/auth/login', {
      declaredLength: 1024 * MB,
      bytes: 64 * 1024,
      pauseMs: 50,
    });
    expectPayloadTooLarge(exchange);
    expect(exchange.received).toMatch(/\r\nconnection: close/i);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
