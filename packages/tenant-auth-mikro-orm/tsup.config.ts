import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', sql: 'src/sql/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node22',
  tsconfig: 'tsconfig.build.json',
});
