// Compiles the code of the docs the way a reader would use it: every ```ts block whose first line is
// `// file: <path>` becomes that file of a small project (one per document), type-checked with module
// nodenext and strict against the packed packages installed beside it.
//
//   node check-snippets.mjs <repo root> <scratch app> <doc.md>...
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const [root, app, ...docs] = process.argv.slice(2);
let failures = 0;
for (const doc of docs) {
  const text = readFileSync(join(root, doc), 'utf8');
  const project = join(app, 'snippets', basename(doc, '.md'));
  const files = [];
  for (const [, body] of text.matchAll(/```ts\n([\s\S]*?)```/g)) {
    const marker = /^\/\/ file: (\S+)\n/.exec(body);
    if (!marker) continue;
    const path = join(project, marker[1]);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, body);
    files.push(marker[1]);
  }
  if (files.length === 0) {
    console.error(`${doc}: no \`// file:\` code blocks to compile`);
    failures++;
    continue;
  }
  writeFileSync(join(project, 'package.json'), '{ "type": "module", "private": true }\n');
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2023',
        lib: ['ES2023'],
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(app, 'node_modules', '@types')],
      },
      include: files,
    }),
  );
  try {
    execFileSync(join(app, 'node_modules', '.bin', 'tsc'), ['-p', project], { stdio: 'inherit' });
    console.log(`ok   ${doc}: ${files.length} files compile (${files.join(', ')})`);
  } catch {
    console.error(`FAIL ${doc}: its code does not compile against the packed packages`);
    failures++;
  }
}
process.exitCode = failures > 0 ? 1 : 0;
