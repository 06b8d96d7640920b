// Reads a V8 .cpuprofile (node --cpu-prof) and summarises it: self time per frame, time per category
// (which package or part of Node the code belongs to), inclusive time of chosen frames, and an SVG flame
// graph (icicle: callers on top, width = time). No dependency: the format is a tree of call frames with
// sample counts. Only the main thread is sampled: work handed to libuv's thread pool (bcrypt, WebCrypto's
// HMAC of jose) shows as the JS that starts and finishes it, not as its own time.

/**
 * Parses a profile: nodes by id with parent links and self time in ms. With `fromMs` / `toMs` (from the
 * profile's start, i.e. about the process's start) only the samples in that window count: the load
 * phase, without start-up (module loading, migrations) and shutdown.
 */
export function loadProfile(json, { fromMs = 0, toMs = Number.POSITIVE_INFINITY } = {}) {
  const profile = typeof json === 'string' ? JSON.parse(json) : json;
  const byId = new Map();
  for (const node of profile.nodes) byId.set(node.id, { ...node, self: 0, parent: null });
  for (const node of byId.values()) for (const child of node.children ?? []) byId.get(child).parent = node;
  // Self time from the samples and their time deltas (more exact than hitCount x the mean interval).
  const { samples, timeDeltas } = profile;
  let t = 0;
  for (let i = 0; i < samples.length; i++) {
    t += timeDeltas[i] / 1000;
    const node = byId.get(samples[i]);
    const next = timeDeltas[i + 1];
    if (node && next !== undefined && t >= fromMs && t <= toMs) node.self += next / 1000;
  }
  const total = [...byId.values()].reduce((a, n) => a + n.self, 0);
  return { byId, root: byId.get(profile.nodes[0].id), total };
}

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** Which part of the system a frame belongs to, from its URL. */
export function categoryOf(frame) {
  const { url, functionName } = frame.callFrame;
  if (SPECIAL.has(functionName)) return functionName;
  if (!url) return '(native)';
  const pnpm = /node_modules\/\.pnpm\/([^/]+)\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pnpm) return pnpm[2];
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (nm) return nm[1];
  const pkg = /packages\/(tenant-auth-[a-z-]+)\//.exec(url);
  if (pkg) return pkg[1];
  if (url.includes('examples/server/src/')) return 'examples/server';
  if (url.startsWith('node:'))
    return `node:${url.slice(5).split('/')[0] === 'internal' ? url.slice(14).split('/')[0] : url.slice(5)}`;
  return url.split('/').slice(-2).join('/');
}

const short = (url) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, '')
    .replace(/.*\/(packages|examples)\//, '$1/');

export const frameKey = (node) => {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${url ? `${short(url)}:${lineNumber + 1}` : ''}`.trim();
};

/** Self time per frame and per category, as shares of the busy (non-idle) time. */
export function summarise(profile, { top = 25 } = {}) {
  const idle = [...profile.byId.values()]
    .filter((n) => n.callFrame.functionName === '(idle)')
    .reduce((a, n) => a + n.self, 0);
  const busy = profile.total - idle;
  const frames = new Map();
  const categories = new Map();
  for (const node of profile.byId.values()) {
    if (node.self === 0 || node.callFrame.functionName === '(idle)') continue;
    const key = frameKey(node);
    const f = frames.get(key) ?? { frame: key, category: categoryOf(node), ms: 0 };
    f.ms += node.self;
    frames.set(key, f);
    const c = categoryOf(node);
    categories.set(c, (categories.get(c) ?? 0) + node.self);
  }
  const share = (ms) => ms / busy;
  return {
    totalMs: profile.total,
    busyMs: busy,
    idleShare: idle / profile.total,
    topFrames: [...frames.values()]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top)
      .map((f) => ({ ...f, share: share(f.ms) })),
    categories: [...categories.entries()]
      .map(([category, ms]) => ({ category, ms, share: share(ms) }))
      .sort((a, b) => b.ms - a.ms),
  };
}

const RATE_LIMIT_FUNCTIONS = new Set([
  'consume',
  'refund',
  'hit',
  'slidingLogHit',
  'checkHitOptions',
  'clientKeys',
  'clientIpKey',
  'parseIpv4',
  'parseIpv6',
  'parseGroups',
  'mask',
  'formatIpv6',
  'isPrefix',
  'keyOf',
  'partitionOf',
  'prune',
  'budgetOf',
]);

/**
 * The step of the request path a frame belongs to, or null for Node's internals and natives (their time
 * goes to the nearest frame above them that has a step: a socket write under pg is pg's, under Koa's
 * respond() it is the response's).
 */
export function stepOf(frame) {
  const { url, functionName } = frame;
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (functionName === '(program)') return 'V8 and Node outside JS (program)';
  if (/\/jose\//.test(url)) return 'JWT sign/verify (jose, WebCrypto)';
  if (/\/(pino|@pinojs\/[a-z-]+|sonic-boom|pino-std-serializers|fast-redact)\//.test(url))
    return 'request log line (pino)';
  if (/\/(pg|pg-protocol|pg-pool|pg-types|pg-cursor|postgres-[a-z]+)\//.test(url)) return 'pg driver';
  if (/\/(@mikro-orm\/[a-z]+|kysely)\//.test(url)) return 'MikroORM (and kysely)';
  if (/\/(@koa\/router|path-to-regexp)\//.test(url)) return 'routing (@koa/router)';
  if (/tenant-auth-core\/dist\//.test(url))
    return RATE_LIMIT_FUNCTIONS.has(functionName)
      ? 'rate limit (budgets, store, client keys)'
      : 'tenant-auth-core (other)';
  if (/tenant-auth-koa\/dist\//.test(url))
    return RATE_LIMIT_FUNCTIONS.has(functionName)
      ? 'rate limit (budgets, store, client keys)'
      : 'tenant-auth-koa';
  if (/tenant-auth-mikro-orm\/dist\//.test(url)) return 'tenant-auth-mikro-orm';
  if (/examples\/server\/src\//.test(url))
    return 'examples/server (request log middleware, health ping, config)';
  if (
    /\/(koa|koa-compose|delegates|cookies|statuses|content-type|type-is|mime-types|accepts|vary|on-finished|encodeurl|escape-html|http-errors|fresh|destroy|only|depd)\//.test(
      url,
    )
  )
    return 'Koa and writing the response (context, compose, respond, socket write)';
  if (/\/tsx\//.test(url)) return 'tsx loader';
  const pnpm = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pnpm) return pnpm[1];
  return null;
}

/** Busy time per step (every sample to the step of its nearest frame that has one), as shares. */
export function bySteps(profile) {
  const memo = new Map();
  const step = (node) => {
    if (memo.has(node.id)) return memo.get(node.id);
    const own =
      node.callFrame.functionName === '(root)'
        ? 'Node HTTP, net and timers (no package frame)'
        : stepOf(node.callFrame);
    const result = own ?? (node.parent ? step(node.parent) : 'Node HTTP, net and timers (no package frame)');
    memo.set(node.id, result);
    return result;
  };
  const totals = new Map();
  let busy = 0;
  for (const node of profile.byId.values()) {
    if (node.self === 0 || node.callFrame.functionName === '(idle)') continue;
    busy += node.self;
    const s = step(node);
    totals.set(s, (totals.get(s) ?? 0) + node.self);
  }
  return [...totals.entries()]
    .map(([name, ms]) => ({ step: name, ms, share: ms / busy }))
    .sort((a, b) => b.ms - a.ms);
}

const PALETTE = {
  'examples/server': '#e6a04c',
  'tenant-auth-core': '#d46a6a',
  'tenant-auth-koa': '#e08080',
  'tenant-auth-mikro-orm': '#c85a5a',
  jose: '#b565c9',
  pino: '#5ab0d6',
  koa: '#7fbf6a',
  '@koa/router': '#8fcf7a',
  pg: '#6a8fd4',
  'pg-protocol': '#6a8fd4',
  '@mikro-orm/core': '#8c7ad4',
  '@mikro-orm/sql': '#9c8ae4',
  kysely: '#7c6ac4',
  '(garbage collector)': '#999999',
  '(program)': '#bbbbbb',
};
const colour = (category) => PALETTE[category] ?? (category.startsWith('node:') ? '#d9c27a' : '#c9b98a');
const escapeXml = (s) =>
  s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]);

/**
 * An SVG icicle graph of the busy time (idle left out): frames merged by name along each call path,
 * width proportional to inclusive time, frames under `minShare` of the width dropped.
 */
export function flameGraphSvg(
  profile,
  { title = 'CPU profile', width = 1200, rowHeight = 16, minShare = 0.002 } = {},
) {
  // Merge the call tree by frame key along each path.
  const merge = (node) => {
    const merged = { key: frameKey(node), category: categoryOf(node), self: node.self, children: new Map() };
    for (const id of node.children ?? []) {
      const child = profile.byId.get(id);
      if (child.callFrame.functionName === '(idle)') continue;
      const m = merge(child);
      const existing = merged.children.get(m.key);
      if (existing) combine(existing, m);
      else merged.children.set(m.key, m);
    }
    return merged;
  };
  const combine = (a, b) => {
    a.self += b.self;
    for (const [k, c] of b.children) {
      const e = a.children.get(k);
      if (e) combine(e, c);
      else a.children.set(k, c);
    }
  };
  const size = (m) => {
    m.total = m.self;
    for (const c of m.children.values()) m.total += size(c);
    return m.total;
  };
  const root = merge(profile.root);
  size(root);
  const rects = [];
  let depthMax = 0;
  const layout = (m, x, depth) => {
    const w = (m.total / root.total) * width;
    if (m.total / root.total < minShare) return;
    depthMax = Math.max(depthMax, depth);
    rects.push({ x, y: depth, w, m });
    let cx = x;
    for (const c of [...m.children.values()].sort((a, b) => b.total - a.total)) {
      layout(c, cx, depth + 1);
      cx += (c.total / root.total) * width;
    }
  };
  layout(root, 0, 0);
  const height = (depthMax + 1) * rowHeight + 40;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="${width}" height="${height}" font-family="monospace" font-size="11">`,
    `<title>${escapeXml(title)}: flame graph of the busy time</title>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="4" y="16" font-size="14">${escapeXml(title)} (busy time ${Math.round(root.total)} ms; width = share of it; hover for names)</text>`,
  ];
  for (const { x, y, w, m } of rects) {
    const label = `${m.key} — ${((m.total / root.total) * 100).toFixed(1)} % (${m.category})`;
    const top = 24 + y * rowHeight;
    const text = w > 40 ? escapeXml(m.key.slice(0, Math.floor((w - 4) / 6.6))) : '';
    parts.push(
      `<g><title>${escapeXml(label)}</title><rect x="${x.toFixed(1)}" y="${top}" width="${Math.max(0.5, w - 0.5).toFixed(1)}" height="${rowHeight - 1}" fill="${colour(m.category)}"/>${text ? `<text x="${(x + 2).toFixed(1)}" y="${top + rowHeight - 4}">${text}</text>` : ''}</g>`,
    );
  }
  parts.push('</svg>');
  return parts.join('\n');
}
