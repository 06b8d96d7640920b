// Sets up the project of a guide the way its reader does: every code block the guide marks as a file
// becomes that file, and the shell blocks it marks to be run become one script to run in the project.
//
//   node guide-project.mjs <guide.md> <project folder>
//
// Marks: a ```ts block whose first line is `// file: <path>`; any block right after a line
// `<!-- file: <path> -->` (package.json, tsconfig.json, pnpm-workspace.yaml); a ```sh block right after
// `<!-- consumer-smoke: run -->`, appended to <project>/consumer-smoke-run.sh. Blocks inside a list item
// lose the item's indentation.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const [guide, project] = process.argv.slice(2);
const lines = readFileSync(guide, 'utf8').split('\n');
const files = [];
const run = [];
let mark;
for (let i = 0; i < lines.length; i++) {
  const line = lines[i];
  const comment = /^\s*<!-- (file: (\S+)|consumer-smoke: run) -->\s*$/.exec(line);
  if (comment) {
    mark = comment[2] ? { file: comment[2] } : { run: true };
    continue;
  }
  const fence = /^(\s*)```(\w*)\s*$/.exec(line);
  if (!fence) {
    if (line.trim() !== '') mark = undefined;
    continue;
  }
  const [, indent, language] = fence;
  const body = [];
  for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]); i++) body.push(lines[i].slice(indent.length));
  const text = `${body.join('\n')}\n`;
  const marker = language === 'ts' ? /^\/\/ file: (\S+)\n/.exec(text) : null;
  const file = mark?.file ?? marker?.[1];
  if (file) {
    mkdirSync(dirname(join(project, file)), { recursive: true });
    writeFileSync(join(project, file), text);
    files.push(file);
  } else if (mark?.run) {
    run.push(text);
  }
  mark = undefined;
}
if (files.length === 0 || run.length === 0) {
  console.error(
    `${guide}: no files or no commands to run are marked (see .ci/consumer-smoke/guide-project.mjs)`,
  );
  process.exit(1);
}
writeFileSync(join(project, 'consumer-smoke-run.sh'), `set -euxo pipefail\n${run.join('')}`);
console.log(`${guide}: ${files.length} files (${files.join(', ')}), ${run.length} command block(s) to run`);
