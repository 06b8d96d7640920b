import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config.js';
import { api, PASSWORD, uniqueEmail } from './helpers/http.js';
import { startTestServer } from './helpers/test-server.js';

/** Issue 37: a development server on an http:// APP_URL that is not localhost stopped starting over passkeys it never asked for. */
describe('passkeys on an http:// APP_URL that is not localhost', () => {
  it('development: starts with passkeys unavailable, says so in one warn line naming APP_URL, and their ceremonies answer 501 feature_unavailable', async () => {
    const server = await startTestServer({ APP_URL: 'http://dev.example.test:5173' });
    try {
      const warnings = server.logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.level === 'warn' && String(l.msg).includes('passkeys are unavailable'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ variable: 'APP_URL' });
      expect(String(warnings[0]?.msg)).toContain('APP_URL');

      const res = await fetch(`${server.baseUrl}/api/v1/auth/passkeys/login/options`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(501);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await res.json()).toMatchObject({ status: 501, code: 'feature_unavailable' });

      // Everything else works: registration, and the list of passkeys (empty).
      const reg = await api<{ accessToken: string }>(server.baseUrl, '/auth/register', {
        body: { email: uniqueEmail('nopasskeys'), password: PASSWORD },
      });
      expect(reg.status).toBe(201);
      const options = await fetch(`${server.baseUrl}/api/v1/auth/passkeys/registration/options`, {
        method: 'POST',
        headers: { authorization: `Bearer ${reg.body.accessToken}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(options.status).toBe(501);
      expect((await api(server.baseUrl, '/auth/passkeys', { token: reg.body.accessToken })).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('production: refuses to start, naming the variable', async () => {
    const production = {
      NODE_ENV: 'production',
      CORS_ORIGINS: 'https://app.example.com',
      SMTP_URL: 'smtp://127.0.0.1:9',
      MAIL_FROM: 'Example <no-reply@example.com>',
      BCRYPT_COST: '10',
    };
    // The configuration is checked before any I/O: nothing is opened.
    await expect(startTestServer({ ...production, APP_URL: 'http://app.example.com' })).rejects.toThrow(
      ConfigError,
    );
    await expect(startTestServer({ ...production, APP_URL: 'http://app.example.com' })).rejects.toThrow(
      /APP_URL: must use https/,
    );
  });

  it('development with WEBAUTHN_ORIGINS set to http:// elsewhere: asked for passkeys, so still refused, naming it', async () => {
    await expect(
      startTestServer({
        APP_URL: 'http://dev.example.test:5173',
        WEBAUTHN_ORIGINS: 'http://dev.example.test:5173',
      }),
    ).rejects.toThrow(/WEBAUTHN_ORIGINS: must use https/);
  });
});
