import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

describe("the README's store sample", () => {
  it('is the type-checked writing-a-store.ts, word for word', () => {
    const sample = read('./writing-a-store.ts');
    const start = sample.indexOf('// #region readme\n') + '// #region readme\n'.length;
    const region = `${sample.slice(start, sample.indexOf('// #endregion readme')).trimEnd()}\n`;
    const readme = read('../README.md');
    const section = readme.slice(
      readme.indexOf('## Writing a store'),
      readme.indexOf('## Testing an application'),
    );
    expect(region).toContain('export function createMyStores');
    expect(section).toContain(`\`\`\`ts\n${region}\`\`\``);
  });
});
