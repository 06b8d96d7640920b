import { describe, expect, it } from 'vitest';
import { authEventLogger } from './auth-log.js';
import { createLogger, withoutRedaction } from './logger.js';

/** A batching destination: lines wait in `buffer` until `flush()` moves them to `written`. */
function batchingDestination() {
  const buffer: string[] = [];
  const written: string[] = [];
  return {
    buffer,
    written,
    write(line: string) {
      buffer.push(line);
    },
    flush() {
      written.push(...buffer.splice(0));
    },
  };
}

describe('the server logger', () => {
  it('flushes a batching destination after a warning or an error, not after info lines', () => {
    const destination = batchingDestination();
    const logger = createLogger({ level: 'info', destination });
    logger.info('one');
    logger.info('two');
    expect(destination.written).toEqual([]);
    logger.warn('generated development secrets');
    expect(destination.written.map((l) => JSON.parse(l).msg)).toEqual([
      'one',
      'two',
      'generated development secrets',
    ]);
    logger.info('three');
    expect(destination.buffer).toHaveLength(1);
    logger.error('failed');
    expect(destination.written.map((l) => JSON.parse(l).msg).slice(-2)).toEqual(['three', 'failed']);
  });

  it('skips redaction only on the child withoutRedaction() returns, which still flushes a warning at once', () => {
    const destination = batchingDestination();
    const logger = createLogger({ level: 'info', destination });
    logger.info({ token: 't', user: { password: 'p' } }, 'main');
    withoutRedaction(logger).info({ requestId: 'r1' }, 'fixed fields');
    withoutRedaction(logger).warn({ token: 't' }, 'child warning');
    const lines = destination.written.map((l) => JSON.parse(l));
    expect(lines.map((l) => l.msg)).toEqual(['main', 'fixed fields', 'child warning']);
    expect(lines[0]).toMatchObject({ token: '[redacted]', user: { password: '[redacted]' } });
    expect(lines[1]).toMatchObject({ requestId: 'r1', service: 'tenant-auth-server' });
    expect(lines[2]).toMatchObject({ token: 't', level: 'warn' });
  });

  it('logs authentication events with their listed fields, and flushes a replay warning at once', () => {
    const destination = batchingDestination();
    const log = authEventLogger(createLogger({ level: 'info', destination }));
    const base = {
      id: 'e1',
      at: new Date(),
      tenantId: 't1',
      actorId: 'u1',
      subjectId: 'u1',
      sessionId: 's1',
      ipAddress: '192.0.2.1',
      userAgent: 'test',
      requestId: 'r1',
    };
    log({ type: 'refreshed', ...base });
    expect(destination.written).toEqual([]);
    log({ type: 'replay_detected', ...base });
    const lines = destination.written.map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.level, l.msg, l.event, l.tenantId, l.sessionId])).toEqual([
      ['info', 'auth refreshed', 'refreshed', 't1', 's1'],
      ['warn', 'refresh token replay detected; session revoked', 'replay_detected', 't1', 's1'],
    ]);
  });

  it('writes to a destination without flush as it is', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (l: string) => lines.push(l) } });
    logger.warn('w');
    expect(lines.map((l) => JSON.parse(l).level)).toEqual(['warn']);
  });
});
