import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * `pnpm --filter tenant-auth-web dev`: http://localhost:5173, one of the reference server's development
 * origins (its default CORS_ORIGINS and APP_URL), so the links of its emails open this application.
 * tenant-auth-client resolves to its TypeScript sources: no build of the workspace first.
 */
export default defineConfig({
  resolve: {
    alias: {
      'tenant-auth-client': fileURLToPath(
        new URL('../../packages/tenant-auth-client/src/index.ts', import.meta.url),
      ),
    },
  },
  server: { host: 'localhost', port: 5173, strictPort: true },
  preview: { host: 'localhost', port: 5173, strictPort: true },
  build: { target: 'es2022' },
});
