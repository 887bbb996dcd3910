#!/usr/bin/env node
// `npm run build`, and `prepare` (which `npm pack` and `npm publish` run): compiles dist/ with
// tsconfig.build.json. In a fresh checkout the compiler is not there yet: say to run `npm ci` first
// rather than fail with a bare "tsc: not found".
//
// Then it bundles `svc serve` (scripts/bundle-serve.mjs) and names the code it built:
// dist/build-id.json holds a SHA-256 of every compiled .js file (paths and bytes), which the unchanged-import fingerprint names (core/package-root.ts
// buildId), so a changed svc never replays a plan an older one recorded.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
let tsc;
try {
  tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  process.stderr.write(
    'svc build: TypeScript is not installed here. Run `npm ci` first (it installs the dev dependencies and builds dist/), then `npm pack`.\n',
  );
  process.exit(1);
}
const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);
// `svc serve` runs from one bundled module, named by build-id.json too. Imported here, once the
// compiler was found: esbuild is a dependency as well, missing too in a checkout without `npm ci`.
const { bundleServe } = await import('./bundle-serve.mjs');
await bundleServe(root);

const dist = join(root, 'dist');
const files = readdirSync(dist, { recursive: true, withFileTypes: true })
  .filter(
    (e) => e.isFile() && (e.name.endsWith('.js') || e.name.endsWith('.json')) && e.name !== 'build-id.json',
  )
  .map((e) =>
    relative(dist, join(e.parentPath ?? e.path, e.name))
      .split(sep)
      .join('/'),
  )
  .sort();
const hash = createHash('sha256');
for (const file of files) {
  const bytes = readFileSync(join(dist, file));
  hash.update(`${file}\0${bytes.byteLength}\0`);
  hash.update(bytes);
}
writeFileSync(join(dist, 'build-id.json'), `${JSON.stringify({ sha256: hash.digest('hex') })}\n`);
