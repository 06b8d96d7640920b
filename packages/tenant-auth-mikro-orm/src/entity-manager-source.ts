import type { EntityManager, EntityName, MikroORM } from '@mikro-orm/core';

/**
 * The application's ORM, or one of its entity managers. The stores fork it for every operation.
 *
 * @example
 * const source: EntityManagerSource = orm; // or orm.em, or a request's em
 */
export type EntityManagerSource = MikroORM | EntityManager;

/** @internal The entity manager to fork from. */
export function rootEntityManager(source: EntityManagerSource): EntityManager {
  return 'em' in source ? source.em : source;
}

/**
 * @internal The schema the ORM would qualify an entity's table with in a query: the entity's own, else the
 * entity manager's, else the configured one; `undefined` when that is the platform's default schema (the
 * same rule as MikroORM's query builder).
 */
export function schemaOf<T extends object>(em: EntityManager, entity: EntityName<T>): string | undefined {
  const meta = em.getMetadata(entity);
  const metaSchema = meta.schema && meta.schema !== '*' ? meta.schema : undefined;
  const schema = metaSchema ?? em.schema ?? em.config.getSchema(true);
  return schema && schema !== em.getPlatform().getDefaultSchemaName() ? schema : undefined;
}

/**
 * @internal The table name of an entity as the ORM would write it in a query: schema-qualified unless it
 * lives in the platform's default schema ({@link schemaOf}), and quoted.
 */
export function qualifiedTableName<T extends object>(em: EntityManager, entity: EntityName<T>): string {
  const schema = schemaOf(em, entity);
  const table = em.getMetadata(entity).tableName;
  return em.getPlatform().quoteIdentifier(schema ? `${schema}.${table}` : table);
}
