import { fileURLToPath } from 'node:url';
import { defineConfig, loadEnv, type Plugin } from 'vite';

const WEB_DIR = fileURLToPath(new URL('.', import.meta.url));

/** The API the app talks to when `VITE_API_URL` is not set: the reference server of `pnpm start`. */
const DEFAULT_API_URL = 'http://localhost:4000/api/v1';
const API_URL_KEY = 'import.meta.env.VITE_API_URL';

/**
 * Where the page may send requests: the API's origin. A relative URL (`/api/v1`: the API behind the page's
 * own origin, as a reverse proxy serves it) is `'self'`; a scheme-relative one (`//api.example.com/...`) its
 * host, on the page's scheme.
 */
function connectSource(apiUrl: string): string {
  if (URL.canParse(apiUrl)) return new URL(apiUrl).origin;
  if (apiUrl.startsWith('//')) return new URL(`https:${apiUrl}`).host;
  return "'self'";
}

/**
 * The Content-Security-Policy of a build, as a `<meta>` at the top of `index.html`: the app's own scripts
 * and styles only (an injected `<script>` does not run, a `style` attribute does not apply), `fetch` and
 * the like to the API's origin only, no `<base>`, no plugins, no frames. The API's origin comes from the
 * URL the build talks to, so it follows `VITE_API_URL`. Not in `vite dev`: its hot reload injects styles
 * and opens a WebSocket. A policy is a second line, not a licence for injection: a script that ran anyway
 * could still navigate the page elsewhere, or call the API with the user's cookies.
 *
 * A `<meta>` cannot carry `frame-ancestors` or reporting: a host that can set headers should send the same
 * policy as a `Content-Security-Policy` header with `frame-ancestors 'none'` added.
 */
function contentSecurityPolicy(): Plugin {
  let policy = '';
  return {
    name: 'tenant-auth-web:content-security-policy',
    apply: 'build',
    configResolved(config) {
      const apiUrl: string = JSON.parse(
        String(config.define?.[API_URL_KEY] ?? JSON.stringify(DEFAULT_API_URL)),
      );
      policy = [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        `connect-src ${connectSource(apiUrl)}`,
        "base-uri 'none'",
        "form-action 'self'",
      ].join('; ');
    },
    transformIndexHtml() {
      return [
        {
          tag: 'meta',
          attrs: { 'http-equiv': 'Content-Security-Policy', content: policy },
          injectTo: 'head-prepend',
        },
      ];
    },
  };
}

/** `VITE_API_URL` (the environment or `.env*`), or the default when unset; set but empty fails the build. */
function apiUrlOf(env: Record<string, string>): string {
  const url = env.VITE_API_URL;
  if (url === undefined) return DEFAULT_API_URL;
  if (url.trim() === '') {
    throw new Error(`VITE_API_URL is empty: set it to the API prefix, or unset it for ${DEFAULT_API_URL}`);
  }
  return url;
}

/**
 * `pnpm --filter tenant-auth-web dev`: http://localhost:5173, one of the reference server's development
 * origins (its default CORS_ORIGINS and APP_URL), so the links of its emails open this application.
 * tenant-auth-client resolves to its TypeScript sources: no build of the workspace first.
 */
export default defineConfig(({ mode }) => ({
  define: { [API_URL_KEY]: JSON.stringify(apiUrlOf(loadEnv(mode, WEB_DIR, 'VITE_'))) },
  resolve: {
    alias: {
      'tenant-auth-client': fileURLToPath(
        new URL('../../packages/tenant-auth-client/src/index.ts', import.meta.url),
      ),
    },
  },
  plugins: [contentSecurityPolicy()],
  server: { host: 'localhost', port: 5173, strictPort: true },
  preview: { host: 'localhost', port: 5173, strictPort: true },
  build: { target: 'es2022' },
}));
