import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', contract: 'src/contract.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node22',
  tsconfig: 'tsconfig.build.json',
});
