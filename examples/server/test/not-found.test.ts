import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * API.md 1.2: `404 not_found` problem details for an unknown route hold on the whole reference server,
 * outside `/api/v1` as well; the probes and `/metrics` keep their own answers.
 */
describe('unknown routes on the whole server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers 404 not_found problem details outside /api/v1, as under it', async () => {
    const inside = await fetch(`${server.baseUrl}/api/v1/no-such-route`);
    expect(inside.status).toBe(404);
    const expected = await inside.json();
    expect(expected).toMatchObject({ type: 'about:blank', status: 404, code: 'not_found' });
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/no-such-route'],
      ['GET', '/api'],
      ['GET', '/api/v1x'],
      ['GET', '/favicon.ico'],
      ['POST', '/login'],
      ['DELETE', '/livez'],
    ] as const) {
      const res = await fetch(`${server.baseUrl}${path}`, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.headers.get('content-type'), `${method} ${path}`).toBe('application/problem+json');
      expect(res.headers.get('cache-control'), `${method} ${path}`).toBe('no-store');
      expect(await res.json(), `${method} ${path}`).toEqual(expected);
    }
    const head = await fetch(`${server.baseUrl}/no-such-route`, { method: 'HEAD' });
    expect(head.status).toBe(404);
    expect(head.headers.get('content-type')).toBe('application/problem+json');
  });

  it('leaves the probes and /metrics their own answers', async () => {
    const livez = await fetch(`${server.baseUrl}/livez`);
    expect([livez.status, await livez.json()]).toEqual([200, { status: 'ok' }]);
    const readyz = await fetch(`${server.baseUrl}/readyz`);
    expect([readyz.status, await readyz.json()]).toEqual([200, { status: 'ready' }]);
    const metrics = await fetch(`${server.baseUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await metrics.text()).toMatch(/^# HELP /m);
  });
});
