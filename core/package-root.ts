import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_NAME } from './package-name.js';

interface Manifest {
  name?: string;
  version?: string;
}

function manifestAt(dir: string): Manifest | undefined {
  const file = path.join(dir, 'package.json');
  if (!existsSync(file)) return undefined;
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  return manifest.name === PACKAGE_NAME ? manifest : undefined;
}

/** The svc package's root, found from this file whether it runs from source or from dist/. */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (manifestAt(dir)) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`the ${PACKAGE_NAME} package root was not found`);
    dir = parent;
  }
}

/** The installed package's version, as `svc --version` prints it. */
export function packageVersion(): string {
  return manifestAt(packageRoot())?.version ?? 'unknown';
}

/**
 * The Action's bundle names its own code here: action/build.mjs replaces the zeros with the
 * SHA-256 of the bundle's text (as built with the zeros), so the bundle needs no file beside it.
 */
const BUNDLE_ID = 'svc-bundle-id:0000000000000000000000000000000000000000000000000000000000000000';

/**
 * The code that runs, named: the SHA-256 of the compiled files `npm run build` wrote beside
 * dist/ (dist/build-id.json, scripts/build.mjs), the Action bundle's own (BUNDLE_ID), or
 * undefined where there is none (running the TypeScript sources).
 */
export function buildId(): string | undefined {
  const bundled = BUNDLE_ID.slice('svc-bundle-id:'.length);
  if (/^[0-9a-f]{64}$/.test(bundled) && !/^0+$/.test(bundled)) return bundled;
  const file = fileURLToPath(new URL('../build-id.json', import.meta.url));
  if (!existsSync(file)) return undefined;
  const id = (JSON.parse(readFileSync(file, 'utf8')) as { sha256?: unknown }).sha256;
  return typeof id === 'string' && /^[0-9a-f]{64}$/.test(id) ? id : undefined;
}
