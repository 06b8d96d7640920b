import type Koa from 'koa';

/** The passkey ceremonies: each needs the relying party, which a server without passkeys has not. */
const CEREMONIES = new Set([
  'POST /auth/passkeys/registration/options',
  'POST /auth/passkeys',
  'POST /auth/passkeys/login/options',
  'POST /auth/passkeys/login',
  'POST /auth/mfa/passkey/options',
  'POST /auth/reauthenticate/options',
]);

/**
 * When the server runs without passkeys (`passkeysUnavailable` of the configuration), their ceremonies
 * answer `501 feature_unavailable` (problem+json) under `prefix` instead of a `500`: the client learns
 * that the feature is off on this server, not that it broke. Listing and deleting passkeys stay open.
 * The code is core's `feature_unavailable`, as for a feature whose store the bundle leaves out.
 *
 * @example app.use(passkeysUnavailable('/api/v1'));
 */
export function passkeysUnavailable(prefix: string): Koa.Middleware {
  return async (ctx, next) => {
    const path = ctx.path.startsWith(`${prefix}/`) ? ctx.path.slice(prefix.length).replace(/\/+$/, '') : '';
    if (!CEREMONIES.has(`${ctx.method} ${path}`)) return next();
    ctx.status = 501;
    ctx.type = 'application/problem+json';
    ctx.body = {
      type: 'about:blank',
      title: 'Not Implemented',
      status: 501,
      code: 'feature_unavailable',
      detail: 'Passkeys are unavailable on this server (see its start-up log).',
    };
  };
}
