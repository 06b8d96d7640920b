import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));

/** Every source file the module at `entry` reaches through relative imports (type-only ones too). */
function reachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const [, specifier] of source.matchAll(/from '(\.[^']+)'/g)) {
      queue.push(resolve(dirname(file), specifier!.replace(/\.js$/, '.ts')));
    }
  }
  return seen;
}

describe('tenant-auth-core/testing', () => {
  it('reaches neither createTenantAuth nor any service of core: the suites call the store ports alone', () => {
    const files = [...reachable(resolve(here, 'index.ts'))].map((f) =>
      f.slice(resolve(here, '..').length + 1),
    );
    expect(files).toContain('testing/store-conformance.ts');
    // Only the suites themselves, the store-kit entry, and the layers under the mechanisms: the vocabulary
    // (records, errors, roles) and the ports (the store contracts); no mechanism, use case or facade.
    expect(files.filter((f) => !/^(testing|vocabulary|ports)\/|^store-kit\.ts$/.test(f))).toEqual([]);
  });

  it('exports the SAML corpus with nothing but node:crypto under it: an application brings its own XML library', async () => {
    const saml = [...reachable(resolve(here, 'index.ts'))].filter((f) => f.includes('/testing/saml/'));
    expect(saml.map((f) => f.slice(here.length + 1)).sort()).toEqual([
      'saml/saml-builder.ts',
      'saml/saml-corpus.ts',
      'saml/x509.ts',
    ]);
    for (const file of saml) {
      const packages = [...readFileSync(file, 'utf8').matchAll(/from '([^.][^']*)'/g)].map(
        ([, name]) => name,
      );
      expect(packages.filter((name) => name !== 'node:crypto')).toEqual([]);
    }
    const testing = await import('./index.js');
    expect(testing.SAML_CORPUS.length).toBeGreaterThan(20);
    expect(typeof testing.createSamlCorpusWorld).toBe('function');
  });
});
