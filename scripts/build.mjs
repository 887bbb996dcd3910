#!/usr/bin/env node
// `npm run build`, and `prepare` (which `npm pack` and `npm publish` run): compiles dist/ with
// tsconfig.build.json. In a fresh checkout the compiler is not there yet: say to run `npm ci` first
// rather than fail with a bare "tsc: not found".
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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
process.exit(run.status ?? 1);
