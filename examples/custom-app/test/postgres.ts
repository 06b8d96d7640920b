import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';

/** When set, the tests run on this PostgreSQL too (each file in a throwaway database of its own). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

/** The backends a test file runs on: PGlite always, PostgreSQL when `TEST_DATABASE_URL` is set. */
export const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])] as const;

/**
 * Creates `custom_app_<random>` on the server of `TEST_DATABASE_URL`; `drop()` removes it.
 *
 * @example const db = await createTestDatabase(); ...; await db.drop();
 */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
  const admin = new MikroORM({
    clientUrl: TEST_DATABASE_URL,
    entities: [],
    discovery: { warnWhenNoEntities: false },
  });
  const name = `custom_app_${randomBytes(6).toString('hex')}`;
  await admin.em.getConnection().execute(`create database "${name}"`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.em.getConnection().execute(`drop database if exists "${name}" with (force)`);
      await admin.close(true);
    },
  };
}
