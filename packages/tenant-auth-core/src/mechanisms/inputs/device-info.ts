export const DEVICE_INFO_MAX_LENGTH = 200;
export const USER_AGENT_MAX_LENGTH = 512;
export const IP_ADDRESS_MAX_LENGTH = 64;

// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** @internal Free text as stored: control characters removed, trimmed, capped. */
export function cleanText(value: string | null | undefined, max: number): string | null {
  if (typeof value !== 'string') return null;
  const cleaned = [...value.replace(CONTROL, '').trim()].slice(0, max).join('');
  return cleaned.length > 0 ? cleaned : null;
}

const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\b(?:OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\b(?:Chrome|CriOS|Chromium)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*Safari\//, 'Safari'],
  [/^curl\//, 'curl'],
  [/^PostmanRuntime\//, 'Postman'],
  [/^okhttp\//, 'OkHttp'],
  [/\bnode(?:-fetch)?\b|^undici\b/i, 'Node.js'],
];
const SYSTEMS: [RegExp, string][] = [
  [/\bWindows\b/, 'Windows'],
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bLinux\b/, 'Linux'],
];

/**
 * A short human summary of a user agent, recorded as a session's device info when the client sends
 * none.
 *
 * @example describeUserAgent('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) ... Chrome/126.0 Safari/537.36'); // 'Chrome on macOS'
 */
export function describeUserAgent(userAgent: string | null | undefined): string {
  const ua = cleanText(userAgent, USER_AGENT_MAX_LENGTH);
  if (!ua) return 'Unknown device';
  const browser = BROWSERS.find(([re]) => re.test(ua))?.[1];
  const system = SYSTEMS.find(([re]) => re.test(ua))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  if (browser ?? system) return (browser ?? system) as string;
  return [...ua].slice(0, 60).join('');
}
