// The semver gate's judgement, as pure functions: each package's API reports (packages/*/etc/*.api.md) at
// its last release and now, the pending changesets and the acknowledged compatible changes in, a verdict
// out. scripts/semver-gate.ts reads those from git and the working tree and prints the verdict.
//
// A report is compared line by line. Each line is keyed by what it is inside of: its declaration
// (`interface TenantAuth`) and the lines that open the blocks around it (`login: {`), so a member is
// compared with the same member, wherever it moved. A key in the old report and not in the new one is a
// line removed or changed. Not compared: lines outside the ```ts block, comment lines (`// @public`,
// `// (undocumented)`, `// Warning: …`, `// @deprecated`: notes on a declaration, not its shape) and
// `import` lines (what the surface refers to, not what it exports). Whitespace is collapsed and a trailing
// comma dropped (an item stops being last when one is added after it), and lines are compared as a set, so
// order does not count (API Extractor's member order is not stable, see scripts/api-report.mjs).
// Two interface changes are checked exactly and pass (see `stillThere`): gaining `extends` parents, and a
// member moving unchanged into an interface the declaration now extends.

/** A changeset's bump for one package. */
export type Bump = 'major' | 'minor' | 'patch' | 'none';

/** One line of a report with what it is inside of. */
export interface ReportLine {
  /** The declaration (`interface TenantAuth`), then the lines opening each block around the line; empty for a declaration's first line. */
  readonly in: readonly string[];
  /** The line, whitespace collapsed, without a trailing comma. */
  readonly line: string;
}

/** One report of a package, at the last release and now (undefined: it did not or does not exist). */
export interface ReportPair {
  /** The report's file name, e.g. `tenant-auth-core-store-kit.api.md`. */
  readonly report: string;
  readonly before: string | undefined;
  readonly after: string | undefined;
}

/** A published package, its last release and its reports. */
export interface PackageInput {
  readonly name: string;
  /** The release compared against; undefined when the package has had none (then nothing is compared). */
  readonly release: { readonly commit: string; readonly version: string; readonly label: string } | undefined;
  readonly reports: readonly ReportPair[];
}

/** A pending changeset: its file and the bump it gives each package it names. */
export interface Changeset {
  readonly file: string;
  readonly releases: Readonly<Record<string, Bump>>;
}

/** A removed or changed line that a reviewer judged compatible, with why. */
export interface Acknowledgement extends ReportLine {
  readonly package: string;
  readonly report: string;
  readonly reason: string;
}

/** A line of the last release's report that the current one no longer has. */
export interface Removal extends ReportLine {
  readonly report: string;
  /** The current report's lines inside the same blocks that the release's did not have (what it became, if it changed). */
  readonly now: readonly string[];
  /** The reason it was acknowledged as compatible, if it was. */
  readonly acknowledged?: string;
}

export interface PackageVerdict {
  readonly name: string;
  readonly release: PackageInput['release'];
  readonly removals: readonly Removal[];
  /** The first pending changeset with a major bump for the package, if any. */
  readonly majorChangeset: string | undefined;
  /** True when every removal is acknowledged or a major changeset covers the package. */
  readonly ok: boolean;
}

export interface Verdict {
  readonly ok: boolean;
  readonly packages: readonly PackageVerdict[];
  /** Acknowledgements that match no removed or changed line. */
  readonly stale: readonly Acknowledgement[];
}

const declarationPattern =
  /^export\s+(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(const|let|var|function|class|interface|type|enum|namespace)\s+([\w$]+)/;

function normalise(line: string): string {
  return line.trim().replace(/\s+/g, ' ').replace(/,$/, '');
}

/**
 * The compared lines of an API report, each with what it is inside of.
 *
 * @example
 * reportLines('```ts\nexport interface A {\n    b: string;\n}\n```');
 * // [{ in: [], line: 'export interface A {' }, { in: ['interface A'], line: 'b: string;' }, { in: ['interface A'], line: '}' }]
 */
export function reportLines(report: string): ReportLine[] {
  const lines: ReportLine[] = [];
  let inCode = false;
  let declaration: string | undefined;
  // The lines that opened the blocks around the current one, with their indentation.
  let open: { indent: number; line: string }[] = [];
  for (const raw of report.split('\n')) {
    if (/^```/.test(raw)) {
      inCode = raw.startsWith('```ts');
      continue;
    }
    const line = normalise(raw);
    if (!inCode || line === '' || line.startsWith('//') || /^import\s/.test(line)) continue;
    const indent = raw.length - raw.trimStart().length;
    const match = indent === 0 ? declarationPattern.exec(line) : null;
    if (match) {
      declaration = `${match[1]} ${match[2]}`;
      open = [];
      lines.push({ in: [], line });
      continue;
    }
    const closes = /^[}\])>]/.test(line);
    // Blocks that ended: the deeper ones, and the one at this indentation unless this line closes it.
    open = open.filter((entry) => entry.indent < indent || (entry.indent === indent && closes));
    lines.push({ in: [...(declaration ? [declaration] : []), ...open.map((entry) => entry.line)], line });
    // A closing line (`}): Promise<number>;`) is keyed inside the block it closes; then that block ends.
    if (closes && open.at(-1)?.indent === indent) open.pop();
    if (/[{[(<]$/.test(line)) open.push({ indent, line });
  }
  return lines;
}

/** The key of a line: equal keys are the same line. */
function keyOf(entry: ReportLine): string {
  return JSON.stringify([...entry.in, entry.line]);
}

function sameBlock(a: ReportLine, b: ReportLine): boolean {
  return JSON.stringify(a.in) === JSON.stringify(b.in);
}

/** `text` split at `separator` outside brackets and quotes, each part trimmed. */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"' || char === '`') quote = char;
    else if ('<([{'.includes(char)) depth++;
    else if ('>)]}'.includes(char) && text[i - 1] !== '=') depth--;
    else if (depth === 0 && text.startsWith(separator, i)) {
      parts.push(text.slice(start, i).trim());
      start = i + separator.length;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}

/** An interface's first line taken apart: `export interface X<T> extends A, B<T> {` → head `export interface X<T>`, parents [A, B<T>]. */
function interfaceHeader(line: string): { head: string; parents: string[] } | undefined {
  if (!/^export\s+(?:declare\s+)?interface\s/.test(line) || !line.endsWith('{')) return undefined;
  const [head = '', ...rest] = splitTopLevel(line.slice(0, -1).trim(), ' extends ');
  return { head, parents: rest.length === 0 ? [] : splitTopLevel(rest.join(' extends '), ',') };
}

/** Each interface's ancestors in a report that are named without type arguments, nearest first. */
function interfaceAncestors(lines: readonly ReportLine[]): Map<string, string[]> {
  const parents = new Map<string, string[]>();
  for (const entry of lines) {
    const header = entry.in.length === 0 ? interfaceHeader(entry.line) : undefined;
    const key = declarationKey(entry.line);
    if (header && key)
      parents.set(
        key,
        header.parents.filter((parent) => /^[\w$]+$/.test(parent)),
      );
  }
  const ancestors = new Map<string, string[]>();
  for (const key of parents.keys()) {
    const found: string[] = [];
    const queue = [...(parents.get(key) ?? [])];
    while (queue.length > 0) {
      const parent = `interface ${queue.shift()}`;
      if (found.includes(parent)) continue;
      found.push(parent);
      queue.push(...(parents.get(parent) ?? []));
    }
    ancestors.set(key, found);
  }
  return ancestors;
}

/**
 * Whether a line of the old report is still there in the new one: the same key, or (two rules, both
 * about interfaces, both checked exactly) the first line of an interface that only gained `extends`
 * parents (that adds members, as new lines do), or a member that moved into an interface the
 * declaration now extends with the same text (the declaration still has it).
 */
function stillThere(
  entry: ReportLine,
  currentKeys: ReadonlySet<string>,
  currentHeaders: ReadonlyMap<string, string>,
  ancestors: ReadonlyMap<string, readonly string[]>,
): boolean {
  if (currentKeys.has(keyOf(entry))) return true;
  if (entry.in.length === 0) {
    const old = interfaceHeader(entry.line);
    const now = interfaceHeader(currentHeaders.get(declarationKey(entry.line) ?? '') ?? '');
    return (
      old !== undefined &&
      now !== undefined &&
      old.head === now.head &&
      old.parents.every((parent) => now.parents.includes(parent))
    );
  }
  const [declaration = '', ...blocks] = entry.in;
  return (ancestors.get(declaration) ?? []).some((ancestor) =>
    currentKeys.has(keyOf({ in: [ancestor, ...blocks], line: entry.line })),
  );
}

/**
 * The lines of `before` that `after` no longer has, each with the new lines of the same block.
 *
 * @example
 * removedLines('```ts\nexport type A = 1;\n```', '```ts\nexport type A = 1 | 2;\n```');
 * // [{ in: [], line: 'export type A = 1;', now: ['export type A = 1 | 2;'] }]
 */
export function removedLines(before: string, after: string | undefined): (ReportLine & { now: string[] })[] {
  const old = reportLines(before);
  const current = after === undefined ? [] : reportLines(after);
  const oldKeys = new Set(old.map(keyOf));
  const currentKeys = new Set(current.map(keyOf));
  const currentHeaders = new Map(
    current
      .filter((entry) => entry.in.length === 0)
      .map((entry) => [declarationKey(entry.line) ?? '', entry.line]),
  );
  const ancestors = interfaceAncestors(current);
  const added = current.filter((entry) => !oldKeys.has(keyOf(entry)));
  const seen = new Set<string>();
  const removed: (ReportLine & { now: string[] })[] = [];
  for (const entry of old) {
    const key = keyOf(entry);
    if (seen.has(key) || stillThere(entry, currentKeys, currentHeaders, ancestors)) continue;
    seen.add(key);
    const now = added
      .filter((candidate) =>
        entry.in.length === 0
          ? candidate.in.length === 0 && declarationKey(candidate.line) === declarationKey(entry.line)
          : sameBlock(candidate, entry),
      )
      .map((candidate) => candidate.line);
    removed.push({ ...entry, now });
  }
  return removed;
}

function declarationKey(line: string): string | undefined {
  const match = declarationPattern.exec(line);
  return match ? `${match[1]} ${match[2]}` : undefined;
}

function acknowledgementKey(packageName: string, report: string, entry: ReportLine): string {
  return JSON.stringify([packageName, report, ...entry.in, entry.line]);
}

/**
 * The gate's verdict: a package passes when every line removed or changed since its last release is
 * acknowledged as compatible, or a pending changeset bumps it `major`; additions always pass. It fails
 * when any package fails or any acknowledgement matches no removed or changed line (stale).
 *
 * @example
 * const verdict = semverVerdict({ packages, changesets, acknowledgements });
 * if (!verdict.ok) process.exitCode = 1;
 */
export function semverVerdict(input: {
  readonly packages: readonly PackageInput[];
  readonly changesets: readonly Changeset[];
  readonly acknowledgements: readonly Acknowledgement[];
}): Verdict {
  const acknowledged = new Map(
    input.acknowledgements.map((entry) => [acknowledgementKey(entry.package, entry.report, entry), entry]),
  );
  const used = new Set<string>();
  const packages = input.packages.map((pkg): PackageVerdict => {
    const majorChangeset = input.changesets.find(
      (changeset) => changeset.releases[pkg.name] === 'major',
    )?.file;
    const removals: Removal[] = [];
    if (pkg.release !== undefined) {
      for (const { report, before, after } of pkg.reports) {
        if (before === undefined) continue;
        for (const entry of removedLines(before, after)) {
          const key = acknowledgementKey(pkg.name, report, entry);
          const acknowledgement = acknowledged.get(key);
          if (acknowledgement) used.add(key);
          removals.push({
            report,
            ...entry,
            ...(acknowledgement ? { acknowledged: acknowledgement.reason } : {}),
          });
        }
      }
    }
    const ok =
      majorChangeset !== undefined || removals.every((removal) => removal.acknowledged !== undefined);
    return { name: pkg.name, release: pkg.release, removals, majorChangeset, ok };
  });
  const stale = [...acknowledged].filter(([key]) => !used.has(key)).map(([, entry]) => entry);
  return { ok: packages.every((pkg) => pkg.ok) && stale.length === 0, packages, stale };
}

/**
 * The bumps in a changeset file's front matter (`"tenant-auth-core": minor`).
 *
 * @example
 * parseChangeset('.changeset/a.md', '---\n"tenant-auth-core": major\n---\n\nWhat changed.');
 * // { file: '.changeset/a.md', releases: { 'tenant-auth-core': 'major' } }
 */
export function parseChangeset(file: string, text: string): Changeset {
  const releases: Record<string, Bump> = {};
  const frontMatter = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  for (const line of frontMatter?.[1]?.split(/\r?\n/) ?? []) {
    const match = /^\s*["']?([^"':]+?)["']?\s*:\s*["']?(major|minor|patch|none)["']?\s*$/.exec(line);
    if (match) releases[match[1]!] = match[2] as Bump;
  }
  return { file, releases };
}

/**
 * The acknowledgements in the file's text: `{ "<package>": [{ "report", "in"?, "line", "reason" }] }`;
 * keys starting with `$` are notes. Throws an Error naming the file and the entry when the shape is wrong.
 *
 * @example
 * parseAcknowledgements('.changeset/compatible-changes.json', '{ "$comment": "…" }'); // []
 */
export function parseAcknowledgements(file: string, text: string): Acknowledgement[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${(error as Error).message})`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new Error(`${file}: expected an object whose keys are package names`);
  }
  const entries: Acknowledgement[] = [];
  for (const [packageName, list] of Object.entries(data)) {
    if (packageName.startsWith('$')) continue;
    if (!Array.isArray(list)) throw new Error(`${file}: "${packageName}" must be a list of entries`);
    list.forEach((entry: unknown, index) => {
      const where = `${file}: "${packageName}" entry ${index + 1}`;
      const fields = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
      const { report, line, reason } = fields;
      const within = fields.in ?? [];
      if (typeof report !== 'string' || !report.endsWith('.api.md'))
        throw new Error(`${where}: "report" must name the report file (e.g. "${packageName}.api.md")`);
      if (typeof line !== 'string' || line.trim() === '')
        throw new Error(`${where}: "line" must be the old line`);
      if (!Array.isArray(within) || !within.every((item) => typeof item === 'string'))
        throw new Error(
          `${where}: "in" must be a list of strings (the declaration, then the enclosing lines)`,
        );
      if (typeof reason !== 'string' || reason.trim() === '')
        throw new Error(`${where}: "reason" must say why the change is compatible`);
      entries.push({
        package: packageName,
        report,
        in: within.map((item: string) => normalise(item)),
        line: normalise(line),
        reason,
      });
    });
  }
  return entries;
}

/**
 * A removal as an entry for the acknowledgements file (the reason left to the reviewer).
 *
 * @example
 * acknowledgementEntry(removal); // { report, in, line, reason: 'TODO: why this is compatible' }
 */
export function acknowledgementEntry(removal: Removal): Record<string, unknown> {
  return {
    report: removal.report,
    ...(removal.in.length > 0 ? { in: removal.in } : {}),
    line: removal.line,
    reason: 'TODO: why this is compatible',
  };
}

/** Where a line is: its report, then its declaration and the blocks around it. */
function where(entry: ReportLine & { report: string }): string {
  const within = entry.in.length === 0 ? [declarationKey(entry.line) ?? entry.line] : entry.in;
  return `${entry.report}: ${within.join(' › ')}`;
}

function since(release: PackageInput['release']): string {
  return release === undefined
    ? 'no release yet'
    : `${release.version} (${release.commit.slice(0, 7)}, ${release.label})`;
}

/**
 * The verdict as the text the gate prints: a line per package, every firing line with what it became,
 * stale acknowledgements, and what to do.
 *
 * @example
 * console.log(formatVerdict(verdict, '.changeset/compatible-changes.json'));
 */
export function formatVerdict(verdict: Verdict, acknowledgementsFile: string): string {
  const out: string[] = [];
  for (const pkg of verdict.packages) {
    const count = pkg.removals.length;
    const acknowledgedCount = pkg.removals.filter((removal) => removal.acknowledged !== undefined).length;
    const firing = pkg.removals.filter((removal) => removal.acknowledged === undefined);
    const compared = `compared with ${since(pkg.release)}`;
    if (pkg.release === undefined) out.push(`ok   ${pkg.name}: no release yet, nothing to compare`);
    else if (count === 0) out.push(`ok   ${pkg.name}: no line removed or changed; ${compared}`);
    else if (pkg.majorChangeset !== undefined)
      out.push(
        `ok   ${pkg.name}: ${count} line(s) removed or changed, and ${pkg.majorChangeset} bumps it major; ${compared}`,
      );
    else if (firing.length === 0)
      out.push(
        `ok   ${pkg.name}: ${count} line(s) changed, each acknowledged as compatible in ${acknowledgementsFile}; ${compared}`,
      );
    else {
      out.push(
        `FAIL ${pkg.name}: ${firing.length} line(s) removed or changed with no major changeset for it` +
          (acknowledgedCount > 0 ? ` (and ${acknowledgedCount} acknowledged)` : '') +
          `; ${compared}`,
      );
      const groups = new Map<string, { removed: string[]; now: readonly string[] }>();
      for (const removal of firing) {
        const group = groups.get(where(removal)) ?? { removed: [], now: removal.now };
        group.removed.push(removal.line);
        groups.set(where(removal), group);
      }
      for (const [heading, group] of groups) {
        out.push(`    in ${heading}`);
        for (const line of group.removed) out.push(`      - ${line}`);
        for (const line of group.now) out.push(`      + ${line}`);
      }
    }
  }
  if (verdict.stale.length > 0) {
    out.push(
      '',
      `FAIL ${verdict.stale.length} stale acknowledgement(s) in ${acknowledgementsFile}: they match no line removed or changed since the last release; delete them:`,
    );
    for (const entry of verdict.stale) out.push(`    ${entry.package}: ${where(entry)}: ${entry.line}`);
  }
  if (verdict.packages.some((pkg) => !pkg.ok)) {
    out.push(
      '',
      'A line of the last release’s API is gone or changed, which breaks code written against that release. Either:',
      '  - keep the old name or signature and add the new one beside it (then pnpm api:update), or',
      `  - if the change is compatible (a union widened, an optional parameter or property added), acknowledge it: add an entry to ${acknowledgementsFile} with the reason (pnpm semver:check --entries prints the entries to fill in), or`,
      '  - if the break is intended, add a changeset that bumps the package major (pnpm changeset) and tells users what to change.',
    );
  }
  out.push('', `semver-gate: ${verdict.ok ? 'ok' : 'FAIL'}`);
  return out.join('\n');
}
