/**
 * Debian's `chromium` driven by playwright-core, headless, with a fresh profile directory: the
 * real browser the page tests use. `chromiumMissing` is the reason to skip when it is not installed.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

export const chromiumMissing = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is not installed (apt-get install chromium)`;

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A browser with its own profile under `root` (so no run sees another's cookies or cache). */
export function launchChromium(root: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(mkdtempSync(join(root, 'chromium-')), {
    executablePath: CHROMIUM,
    args: ARGS,
  });
}

let shared: Promise<Browser> | undefined;

/**
 * A fresh browser context (its own cookies, storage and cache, as a new profile has) in one
 * Chromium that the test file's sign-ins share: starting Chromium costs seconds, a context does
 * not. The file closes it with closeSharedChromium() when done.
 */
export async function freshChromiumContext(): Promise<BrowserContext> {
  shared ??= chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  return (await shared).newContext();
}

/** Closes the Chromium freshChromiumContext() started, if any. */
export async function closeSharedChromium(): Promise<void> {
  const browser = shared;
  shared = undefined;
  await (await browser)?.close();
}
