import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

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

  it('writes to a destination without flush as it is', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (l: string) => lines.push(l) } });
    logger.warn('w');
    expect(lines.map((l) => JSON.parse(l).level)).toEqual(['warn']);
  });
});
