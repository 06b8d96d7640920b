import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { authEventLogger } from './auth-log.js';
import { createLogger, infoLineWriter, isoTime, lineBatch, withoutRedaction } from './logger.js';

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
    const child = withoutRedaction(logger);
    child.info({ requestId: 'r1' }, 'fixed fields');
    logger.info({ token: 't', user: { password: 'p' } }, 'main, after the child');
    child.warn({ token: 't' }, 'child warning');
    const lines = destination.written.map((l) => JSON.parse(l));
    expect(lines.map((l) => l.msg)).toEqual(['fixed fields', 'main, after the child', 'child warning']);
    expect(lines[0]).toMatchObject({ requestId: 'r1', service: 'tenant-auth-server', level: 'info' });
    expect(new Date(lines[0].time).toISOString()).toBe(lines[0].time);
    expect(lines[1]).toMatchObject({ token: '[redacted]', user: { password: '[redacted]' } });
    expect(lines[2]).toMatchObject({ token: 't', level: 'warn' });
  });

  it('logs authentication events with fields the redaction would leave as they are, and flushes a replay warning at once', () => {
    const destination = batchingDestination();
    const log = authEventLogger(createLogger({ level: 'info', destination }));
    const base = {
      id: 'e1',
      at: new Date(),
      tenantId: 't1',
      actorId: 'u1',
      actorType: 'user' as const,
      subjectId: 'u2',
      sessionId: 's1',
      ipAddress: '192.0.2.1',
      userAgent: 'test',
      requestId: 'r1',
    };
    const nobody = { ...base, tenantId: null, actorId: null, subjectId: null, sessionId: null };
    log({ type: 'refreshed', ...base });
    log({ type: 'login_failed', reason: 'wrong_password', ...base });
    log({ type: 'sessions_revoked', count: 3, ...base });
    log({ type: 'member_role_changed', role: 'admin', previousRole: 'member', ...base });
    log({ type: 'invitation_created', role: 'member', ...base });
    log({ type: 'rate_limited', budget: 'network', ...nobody });
    expect(destination.written).toEqual([]);
    log({ type: 'replay_detected', ...base });
    const lines = destination.written.map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.level, l.msg, l.event])).toEqual([
      ['info', 'auth refreshed', 'refreshed'],
      ['info', 'login failed', 'login_failed'],
      ['info', 'auth sessions_revoked', 'sessions_revoked'],
      ['info', 'auth member_role_changed', 'member_role_changed'],
      ['info', 'auth invitation_created', 'invitation_created'],
      ['info', 'auth rate_limited', 'rate_limited'],
      ['warn', 'refresh token replay detected; session revoked', 'replay_detected'],
    ]);
    expect(lines[3]).toMatchObject({ tenantId: 't1', actorId: 'u1', subjectId: 'u2', role: 'admin' });
    // Every field an event line carries, logged again through the redacting logger, comes out the same:
    // the lines lose nothing by skipping the redaction.
    const fields = ({ level, time, pid, hostname, msg, ...rest }: Record<string, unknown>) => rest;
    const again = batchingDestination();
    const redacting = createLogger({ level: 'info', destination: again });
    for (const line of lines) redacting.info(fields(line));
    again.flush();
    expect(again.written.map((l) => fields(JSON.parse(l)))).toEqual(lines.map(fields));
  });

  it('writes to a destination without flush as it is', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (l: string) => lines.push(l) } });
    logger.warn('w');
    expect(lines.map((l) => JSON.parse(l).level)).toEqual(['warn']);
  });

  it('writes an info line with infoLineWriter byte for byte as pino writes logger.info(fields, msg)', () => {
    const fields = {
      event: 'request',
      requestId: '0b4c9a4e-6a0e-4c8e-9f7d-2f1c7e5b2a10',
      method: 'GET',
      path: '/api/v1/a"b\\c\u0001\u2028é😀',
      status: 200,
      ms: 0.4,
      ip: '::ffff:127.0.0.1',
      'odd "key"': -3,
      big: 1e21,
      small: 5e-7,
      nan: Number.NaN,
      left: undefined,
      long: `${'x'.repeat(120)}\udc00`,
      short: 'q"\ud800',
      [`${'k'.repeat(101)}\n`]: 'long key',
    };
    // A pino logger like the server's, with a fixed time so two lines can be compared whole.
    const lines: string[] = [];
    const logger = pino(
      {
        base: { service: 'tenant-auth-server', version: '1"1' },
        timestamp: () => ',"time":"2026-11-26T00:00:00.000Z"',
        formatters: { level: (label) => ({ level: label }) },
      },
      { write: (l: string) => lines.push(l) },
    );
    for (const target of [logger, logger.child({ component: 'http' }), withoutRedaction(logger)]) {
      lines.length = 0;
      target.info(fields, 'request "line"');
      // The writer's own path, not the logger's: it must not call info().
      const write = infoLineWriter(target);
      const info = target.info;
      target.info = () => {
        throw new Error('info() called');
      };
      write(fields, 'request "line"');
      target.info = info;
      expect(lines).toHaveLength(2);
      expect(lines[1]).toBe(lines[0]);
    }
    // The server's own logger: the same keys in the same order, and a time pino would have written.
    const destination = batchingDestination();
    const server = withoutRedaction(createLogger({ level: 'info', destination }));
    server.info(fields, 'request');
    infoLineWriter(server)(fields, 'request');
    destination.flush();
    const [viaPino, viaWriter] = destination.written.map((l) => JSON.parse(l));
    expect(Object.keys(viaWriter)).toEqual(Object.keys(viaPino));
    expect({ ...viaWriter, time: 0 }).toEqual({ ...viaPino, time: 0 });
    expect(new Date(viaWriter.time).toISOString()).toBe(viaWriter.time);
  });

  it('writes nothing with infoLineWriter while info is off', () => {
    const destination = batchingDestination();
    const logger = createLogger({ level: 'warn', destination });
    const write = infoLineWriter(logger);
    write({ event: 'request' }, 'request');
    logger.level = 'info';
    write({ event: 'request' }, 'again');
    destination.flush();
    expect(destination.written.map((l) => JSON.parse(l).msg)).toEqual(['again']);
  });

  it('gives the ISO time of the current millisecond', () => {
    const before = Date.now();
    const [, text] = /^,"time":"(.*)"$/.exec(isoTime()) ?? [];
    const after = Date.now();
    const ms = new Date(text ?? '').getTime();
    expect(new Date(ms).toISOString()).toBe(text);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
  });

  it('hands lines to the writer in order, in batches of about 16 KiB, and whatever is pending at a flush', () => {
    const chunks: string[] = [];
    const batch = lineBatch((chunk) => chunks.push(chunk));
    const line = (i: number) => `{"i":"${String(i).padStart(3, '0')}","pad":"${'x'.repeat(79)}"}\n`;
    for (let i = 0; i < 400; i++) batch.write(line(i));
    // 400 lines of 100 characters: two batches of 164 lines (the first 16,400 characters), 72 held back.
    expect(line(0)).toHaveLength(100);
    expect(chunks.map((c) => c.length)).toEqual([16_400, 16_400]);
    batch.flush();
    batch.flush();
    expect(chunks).toHaveLength(3);
    expect(chunks.join('')).toBe(Array.from({ length: 400 }, (_, i) => line(i)).join(''));
  });

  it('leaves to the logger what it does not write as pino would: redacted or serialised fields, a multistream', () => {
    // The server's main logger redacts `token`: the line goes through pino, redacted.
    const destination = batchingDestination();
    const redacting = createLogger({ level: 'info', destination });
    infoLineWriter(redacting)({ event: 'request', token: 'secret-value' }, 'request');
    const serialised = pino(
      { serializers: { ip: () => 'hidden' } },
      { write: (l: string) => destination.buffer.push(l) },
    );
    infoLineWriter(serialised)({ ip: '192.0.2.1' }, 'request');
    destination.flush();
    const [redacted, hidden] = destination.written.map((l) => JSON.parse(l));
    expect(redacted).toMatchObject({ event: 'request', token: '[redacted]', msg: 'request' });
    expect(hidden).toMatchObject({ ip: 'hidden' });
    // A multistream routes each line by its level: it gets the line from pino, with the metadata it reads.
    const infos: string[] = [];
    const warnings: string[] = [];
    const multi = pino(
      { level: 'info' },
      pino.multistream([
        { level: 'info', stream: { write: (l: string) => infos.push(l) } },
        { level: 'warn', stream: { write: (l: string) => warnings.push(l) } },
      ]),
    );
    infoLineWriter(multi)({ event: 'request' }, 'request');
    expect(infos.map((l) => JSON.parse(l).msg)).toEqual(['request']);
    expect(warnings).toEqual([]);
  });

  it('gives back what a line batch holds with take(), and holds nothing after it', () => {
    const chunks: string[] = [];
    const batch = lineBatch((chunk) => chunks.push(chunk));
    batch.write('a\n');
    batch.write('b\n');
    expect(batch.take()).toBe('a\nb\n');
    expect(batch.take()).toBe('');
    batch.flush();
    expect(chunks).toEqual([]);
  });

  it('writes the lines stdoutDestination still holds when the process exits, on a crash too', () => {
    const logger = fileURLToPath(new URL('./logger.ts', import.meta.url));
    for (const ending of ['', "setTimeout(() => { throw new Error('crash'); }, 10);"]) {
      const script = `
        import { createLogger, stdoutDestination, withoutRedaction, infoLineWriter } from ${JSON.stringify(logger)};
        const line = infoLineWriter(withoutRedaction(createLogger({ level: 'info', destination: stdoutDestination() })));
        for (let i = 0; i < 5; i++) line({ event: 'request', n: i }, 'request');
        ${ending}`;
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        encoding: 'utf8',
        timeout: 20_000,
      });
      const written = child.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).n);
      expect(written, `${ending || 'a natural exit'}: ${child.stderr}`).toEqual([0, 1, 2, 3, 4]);
      if (ending !== '') expect(child.stderr).toContain('crash');
    }
  });
});
