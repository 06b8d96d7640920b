import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WEB_DIR } from './support/web-env.js';

/*
 * The README is what teams read before they copy a page: its table of pages names every route the app
 * registers (`addRoute`), and every screenshot it shows is in docs/.
 */

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [readFileSync(join(dir, entry.name), 'utf8')]
        : [],
  );
}

const readme = readFileSync(join(WEB_DIR, 'README.md'), 'utf8');

describe('the web README', () => {
  it('lists every page of the app in its table of pages', () => {
    const routes = sources(join(WEB_DIR, 'app')).flatMap((text) =>
      [...text.matchAll(/addRoute\(\s*'([^']+)'/g)].map((m) => m[1] ?? ''),
    );
    expect(routes.length).toBeGreaterThan(15);
    const table = readme.slice(readme.indexOf('## The pages'));
    const listed = new Set(
      table
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1])),
    );
    // `*` is the page of any other path ("not found"), not a page of the navigation.
    expect(routes.filter((route) => route !== '*' && !listed.has(route))).toEqual([]);
  });

  it('shows only screenshots that exist', () => {
    const shown = [...readme.matchAll(/\]\((docs\/[^)]+\.png)\)/g)].map((m) => m[1] ?? '');
    expect(shown.length).toBeGreaterThan(10);
    const present = new Set(readdirSync(join(WEB_DIR, 'docs')).map((name) => `docs/${name}`));
    expect(shown.filter((path) => !present.has(path))).toEqual([]);
  });
});
