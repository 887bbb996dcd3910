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
