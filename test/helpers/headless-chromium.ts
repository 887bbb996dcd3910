/**
 * Debian's `chromium` driven by playwright-core, headless, with a fresh profile directory: the
 * real browser the page tests use. `chromiumMissing` is the reason to skip when it is not installed.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

export const chromiumMissing = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is not installed (apt-get install chromium)`;

/** A browser with its own profile under `root` (so no run sees another's cookies or cache). */
export function launchChromium(root: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(mkdtempSync(join(root, 'chromium-')), {
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
