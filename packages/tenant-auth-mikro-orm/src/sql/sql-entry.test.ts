import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqlStores, numberParameters, type SqlDriver } from './index.js';

/** The modules of this folder (tests aside), with what each imports. */
function modules(dir = import.meta.dirname): { file: string; imports: string[] }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modules(path);
    if (!entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) return [];
    const source = readFileSync(path, 'utf8');
    // `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`.
    const specifiers = /^(?:import|export)[^'"]*from '([^']+)'|^import '([^']+)'|\bimport\(\s*'([^']+)'/gm;
    const imports = [...source.matchAll(specifiers)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
    return [{ file: relative(import.meta.dirname, path), imports }];
  });
}

describe('tenant-auth-mikro-orm/sql', () => {
  it('imports only Node, tenant-auth-core and its own folder: no MikroORM, so another driver needs none', () => {
    const found = modules();
    expect(found.length).toBeGreaterThan(10);
    for (const { file, imports } of found) {
      for (const specifier of imports) {
        const inFolder =
          specifier.startsWith('./') || (specifier.startsWith('../') && file.startsWith('stores/'));
        const allowed =
          specifier.startsWith('node:') ||
          specifier === 'tenant-auth-core' ||
          specifier === 'tenant-auth-core/store-kit' ||
          (inFolder && !specifier.startsWith('../../'));
        expect(allowed, `${file} imports ${specifier}`).toBe(true);
      }
    }
  });

  it('numbers the placeholders for pg, leaving quoted ones alone', () => {
    expect(numberParameters('select a from t where b = ? and c = ?::timestamptz limit ?')).toBe(
      'select a from t where b = $1 and c = $2::timestamptz limit $3',
    );
    expect(numberParameters(`update t set payload = '?' where "odd?" = ? and d = ''`)).toBe(
      `update t set payload = '?' where "odd?" = $1 and d = ''`,
    );
  });

  it('maps what a driver throws to a TenantAuthError with no row values, and keeps what a transaction threw', async () => {
    const failing = (err: unknown): SqlDriver => ({
      rows: () => Promise.reject(err),
      execute: () => Promise.reject(err),
      transaction: (fn) => fn(failing(err)),
    });
    const unique = Object.assign(new Error('duplicate key: (ada@example.com, $2b$10$hash)'), {
      code: '23505',
      constraint: 'tenant_auth_user_email_unique',
    });
    const stores = createSqlStores(failing(unique));
    await expect(stores.users.findByEmail('ada@example.com')).rejects.toMatchObject({
      code: 'email_taken',
      message: 'This email address is already registered.',
      cause: { name: 'StoreDriverError', code: '23505' },
    });
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    await expect(
      createSqlStores(failing(refused)).tenants.findById(crypto.randomUUID()),
    ).rejects.toMatchObject({ code: 'unavailable' });
    class Mine extends Error {}
    await expect(stores.transaction(() => Promise.reject(new Mine('rolled back')))).rejects.toBeInstanceOf(
      Mine,
    );
  });
});
