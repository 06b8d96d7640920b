#!/usr/bin/env node
// The documentation stays inside the repository.
//
//   node scripts/check-links.mjs
//
// Every Markdown file git tracks (generated API reports and changesets aside): each relative link must
// resolve to a file or folder inside the repository, and no link may point to the web (a link to a local
// server the docs tell you to start, http://localhost…, is fine). docs/http-api.md must hold the
// specification's API.md word for word when ../shared/API.md is beside the repository.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const files = execFileSync('git', ['ls-files', '*.md', '**/*.md'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f !== '' && !/(^|\/)etc\/.*\.api\.md$/.test(f) && !f.startsWith('.changeset/'));

const problems = [];
for (const file of [...new Set(files)]) {
  const text = readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  const links = [
    ...[...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]),
    ...[...text.matchAll(/<(https?:\/\/[^>\s]+)>/g)].map((m) => m[1]),
  ];
  for (const link of links) {
    if (link.startsWith('#')) continue;
    if (/^https?:\/\/(localhost|127\.0\.0\.1)([:/]|$)/.test(link)) continue;
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) {
      problems.push(`${file}: ${link} points outside the repository`);
      continue;
    }
    const target = resolve(root, dirname(file), decodeURIComponent(link.split('#')[0]));
    if (relative(root, target).startsWith('..'))
      problems.push(`${file}: ${link} points outside the repository`);
    else if (!existsSync(target)) problems.push(`${file}: ${link} does not exist`);
  }
}

const spec = resolve(root, '..', 'shared', 'API.md');
if (
  existsSync(spec) &&
  !readFileSync(join(root, 'docs', 'http-api.md'), 'utf8').includes(readFileSync(spec, 'utf8'))
) {
  problems.push('docs/http-api.md no longer holds ../shared/API.md word for word: copy it again');
}

if (problems.length > 0) {
  console.error(`check-links: ${problems.length} problem(s):`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(`check-links: ${files.length} Markdown files link only inside the repository`);
