import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WEB_DIR } from './support/web-env.js';

/*
 * The build's Content-Security-Policy follows the API URL the build talks to, however it is given.
 * (That the app works under it, and what it stops, is browser-security.test.ts, in Chromium.)
 */

interface Built {
  /** The `connect-src` of the policy in index.html, or null without one. */
  connectSrc: string | null;
  /** The API URL compiled into the app's script. */
  compiled: boolean;
}

/** Builds the app in memory (nothing written) and reads its policy and script. */
async function build(apiUrl: string | undefined, how: 'define' | 'env'): Promise<Built> {
  const { build } = await import('vite');
  const output = await build({
    root: WEB_DIR,
    configFile: join(WEB_DIR, 'vite.config.ts'),
    logLevel: 'silent',
    ...(how === 'define' && apiUrl
      ? { define: { 'import.meta.env.VITE_API_URL': JSON.stringify(apiUrl) } }
      : {}),
    build: { write: false },
  });
  const files = (Array.isArray(output) ? output : [output]).flatMap((o) => ('output' in o ? o.output : []));
  const html = files.find((f) => f.fileName === 'index.html');
  const source = html && 'source' in html ? String(html.source) : '';
  const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(source)?.[1];
  const script = files
    .filter((f) => f.fileName.endsWith('.js'))
    .map((f) => ('code' in f ? f.code : ''))
    .join('\n');
  return {
    connectSrc: policy ? (/connect-src ([^;]*)/.exec(policy.replaceAll('&#39;', "'"))?.[1] ?? null) : null,
    compiled: script.includes(apiUrl ?? 'http://localhost:4000/api/v1'),
  };
}

describe('the web build', () => {
  // Addresses found nowhere else in the bundle, so finding one proves it was compiled in.
  const before = process.env.VITE_API_URL;
  afterEach(() => {
    if (before === undefined) delete process.env.VITE_API_URL;
    else process.env.VITE_API_URL = before;
  });

  it('lets the page talk to the API it was built for, and to no other origin', async () => {
    delete process.env.VITE_API_URL;
    expect(await build(undefined, 'env')).toEqual({ connectSrc: 'http://localhost:4000', compiled: true });
    process.env.VITE_API_URL = 'https://auth.csp-env.example/api/v1';
    expect(await build('https://auth.csp-env.example/api/v1', 'env')).toEqual({
      connectSrc: 'https://auth.csp-env.example',
      compiled: true,
    });
    delete process.env.VITE_API_URL;
    expect(await build('https://auth.csp-define.example:8443/api/v1', 'define')).toEqual({
      connectSrc: 'https://auth.csp-define.example:8443',
      compiled: true,
    });
  });

  it("allows its own origin for an API behind the same origin ('/auth-api/v1'), and a scheme-relative host", async () => {
    delete process.env.VITE_API_URL;
    expect(await build('/auth-api/v1', 'define')).toEqual({ connectSrc: "'self'", compiled: true });
    expect(await build('//auth.csp-relative.example/api/v1', 'define')).toEqual({
      connectSrc: 'auth.csp-relative.example',
      compiled: true,
    });
  });

  it('refuses an empty VITE_API_URL instead of building for localhost', async () => {
    process.env.VITE_API_URL = '';
    await expect(build(undefined, 'env')).rejects.toThrow(/VITE_API_URL is empty/);
  });
});
