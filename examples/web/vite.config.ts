import { fileURLToPath } from 'node:url';
import { defineConfig, loadEnv, type Plugin } from 'vite';

const WEB_DIR = fileURLToPath(new URL('.', import.meta.url));

/** The API the app talks to when `VITE_API_URL` is not set: the reference server of `pnpm start`. */
const DEFAULT_API_URL = 'http://localhost:4000/api/v1';
const API_URL_KEY = 'import.meta.env.VITE_API_URL';

/**
 * The Content-Security-Policy of a build, as a `<meta>` at the top of `index.html`: the app's own scripts
 * and styles only (an injected `<script>` or `style` attribute does not apply), requests to the API's
 * origin only (a script that got in anyway cannot send what it reads anywhere else), no `<base>`, no
 * plugins, no frames. The API's origin comes from the URL the build talks to, so it follows
 * `VITE_API_URL`. Not in `vite dev`: its hot reload injects styles and opens a WebSocket.
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
      const apiUrl = JSON.parse(String(config.define?.[API_URL_KEY] ?? JSON.stringify(DEFAULT_API_URL)));
      policy = [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        `connect-src ${new URL(apiUrl).origin}`,
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

/**
 * `pnpm --filter tenant-auth-web dev`: http://localhost:5173, one of the reference server's development
 * origins (its default CORS_ORIGINS and APP_URL), so the links of its emails open this application.
 * tenant-auth-client resolves to its TypeScript sources: no build of the workspace first.
 */
export default defineConfig(({ mode }) => ({
  define: {
    [API_URL_KEY]: JSON.stringify(loadEnv(mode, WEB_DIR, 'VITE_').VITE_API_URL || DEFAULT_API_URL),
  },
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
