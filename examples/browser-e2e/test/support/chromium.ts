import { accessSync, constants } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (`apt-get install -y chromium`); `CHROMIUM_PATH` points elsewhere. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags that keep a headless Chromium quiet and deterministic in a container. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Launches the system Chromium through playwright-core (which never downloads a browser). A missing
 * Chromium is an error, not a skip: CI installs it, so its absence must fail loudly.
 *
 * @example
 * const browser = await launchChromium();
 * const context = await browser.newContext();
 */
export async function launchChromium(): Promise<Browser> {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
  } catch {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}. These browser tests need a real Chromium: ` +
        'run `apt-get update && apt-get install -y chromium` (as .ci/run does), or set CHROMIUM_PATH.',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}
