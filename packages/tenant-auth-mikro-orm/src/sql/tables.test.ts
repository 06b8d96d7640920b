import { describe, expect, it } from 'vitest';
import { tenantAuthEntities } from '../tenant-auth-entities.js';
import { TABLES } from './tables.js';

describe('the tables of the SQL stores', () => {
  it('are the tables of the entities (and so of the migrations), in their order', () => {
    expect(TABLES).toEqual(tenantAuthEntities.map((entity) => entity.meta.tableName));
  });
});
