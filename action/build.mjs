// Bundles the action into one ESM file for the node24 runner (runnable on Node 20 too) that needs no
// `npm install`: every dependency is inlined. Deterministic: the same sources and lockfile give the same
// bytes, which test/action-bundle.test.ts checks against the committed action/dist/index.js.
import { build } from 'esbuild';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const OUTFILE = 'action/dist/index.js';

const LOCAL_REQUIRE = /^const require = createRequire\(import\.meta\.url\);$/m;

/**
 * Project files that build their own `require` with createRequire (precompiled ajv validators do, to load
 * ajv's runtime helpers) would make the bundle look for node_modules at run time. Dropping that line lets
 * esbuild see plain require() calls and inline what they load.
 */
export const inlineLocalRequires = {
  name: 'inline-local-requires',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!LOCAL_REQUIRE.test(text)) return undefined;
      return { contents: text.replace(LOCAL_REQUIRE, ''), loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
    });
  },
};

/** The bundle's text, built in memory. */
export async function bundleAction() {
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['action/src/main.ts'],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    write: false,
    outfile: OUTFILE,
    legalComments: 'eof',
    charset: 'utf8',
    logLevel: 'warning',
    plugins: [inlineLocalRequires],
    // CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __svcCreateRequire } from 'node:module';\nconst require = __svcCreateRequire(import.meta.url);",
    },
  });
  return result.outputFiles[0].text;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = await bundleAction();
  await mkdir(resolve(root, 'action/dist'), { recursive: true });
  await writeFile(resolve(root, OUTFILE), text);
  process.stdout.write(`${OUTFILE}: ${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB\n`);
}
