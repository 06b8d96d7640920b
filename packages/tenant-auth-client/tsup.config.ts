import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  // Browsers as well as Node 22: nothing newer than ES2022 in the output.
  target: 'es2022',
  platform: 'neutral',
  tsconfig: 'tsconfig.build.json',
});
