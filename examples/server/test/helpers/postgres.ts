import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';

/** `TEST_DATABASE_URL` when set: the PostgreSQL the tests also run against (CI always sets it). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
/** `TEST_REDIS_URL` when set. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;

/** A throwaway database on the test PostgreSQL, so each test file has its own. */
export interface TestDatabase {
  url: string;
  name: string;
  /** A superuser connection to the base database, for pg_terminate_backend and the like. */
  admin: MikroORM;
  drop(): Promise<void>;
}

/**
 * Creates `ta_server_<random>` on the server of `baseUrl` and returns its URL.
 *
 * @example const db = await createTestDatabase(TEST_DATABASE_URL); ...; await db.drop();
 */
export async function createTestDatabase(baseUrl: string): Promise<TestDatabase> {
  const admin = await MikroORM.init({
    clientUrl: baseUrl,
    entities: [],
    discovery: { warnWhenNoEntities: false },
  });
  const name = `ta_server_${randomBytes(6).toString('hex')}`;
  await admin.em.getConnection().execute(`create database "${name}"`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    admin,
    async drop() {
      await admin.em.getConnection().execute(`drop database if exists "${name}" with (force)`);
      await admin.close(true);
    },
  };
}
