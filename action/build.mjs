// Bundles the action into one ESM file for the node24 runner (runnable on Node 20 too) that needs no
// `npm install`: every dependency is inlined. Deterministic: the same sources and lockfile give the same
// bytes, which test/action-bundle.test.ts checks against the committed action/dist/index.js.
import { build } from 'esbuild';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { dirname, extname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const OUTFILE = 'action/dist/index.js';

const LOCAL_REQUIRE = /^const require = createRequire\(import\.meta\.url\);$/m;

/**
 * Project files that build their own `require` with createRequire (precompiled ajv validators do, to load
 * ajv's runtime helpers) would make the bundle look for node_modules at run time. Dropping that line lets
 * esbuild see plain require() calls and inline what they load.
 *
 * With `rev`, project files are read from that git revision instead of the work tree, so the bundle matches
 * what is committed even while other work is in progress in the checkout (`node action/build.mjs --rev HEAD`).
 */
export function projectSources(rev) {
  const loaders = { '.ts': 'ts', '.mts': 'ts', '.js': 'js', '.mjs': 'js', '.cjs': 'js', '.json': 'json' };
  return {
    name: 'project-sources',
    setup(b) {
      b.onLoad({ filter: /\.([cm]?[jt]s|json)$/ }, async (args) => {
        const rel = relative(root, args.path).split(sep).join('/');
        if (rel.startsWith('..') || rel.split('/').includes('node_modules')) return undefined;
        const text = rev
          ? execFileSync('git', ['show', `${rev}:${rel}`], {
              cwd: root,
              encoding: 'utf8',
              maxBuffer: 1 << 30,
            })
          : await readFile(args.path, 'utf8');
        if (!rev && !LOCAL_REQUIRE.test(text)) return undefined;
        return { contents: text.replace(LOCAL_REQUIRE, ''), loader: loaders[extname(args.path)] ?? 'js' };
      });
    },
  };
}

export const inlineLocalRequires = projectSources(undefined);

/** The bundle's text, built in memory (from the work tree, or from git revision `rev`). */
export async function bundleAction(rev) {
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
    plugins: [projectSources(rev)],
    // CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __svcCreateRequire } from 'node:module';\nconst require = __svcCreateRequire(import.meta.url);",
    },
  });
  return withBundleId(result.outputFiles[0].text);
}

const BUNDLE_ID_MARKER = `svc-bundle-id:${'0'.repeat(64)}`;

/**
 * The bundle names its code (core/package-root.ts buildId, which the unchanged-import fingerprint
 * reads): the marker's zeros become the SHA-256 of the text as built, so a changed bundle never
 * replays what another one recorded, and the same sources still give the same bytes.
 */
function withBundleId(text) {
  const at = text.indexOf(BUNDLE_ID_MARKER);
  if (at < 0 || text.indexOf(BUNDLE_ID_MARKER, at + 1) >= 0)
    throw new Error(`the bundle must hold ${BUNDLE_ID_MARKER} once`);
  const id = createHash('sha256').update(text).digest('hex');
  return `${text.slice(0, at)}svc-bundle-id:${id}${text.slice(at + BUNDLE_ID_MARKER.length)}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--rev');
  const text = await bundleAction(at > 0 ? process.argv[at + 1] : undefined);
  await mkdir(resolve(root, 'action/dist'), { recursive: true });
  await writeFile(resolve(root, OUTFILE), text);
  process.stdout.write(`${OUTFILE}: ${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB\n`);
}
