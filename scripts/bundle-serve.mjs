// Part of `npm run build` (scripts/build.mjs), after tsc: `svc serve` as one bundled module.
//
// The runtime's module graph is some 500 files (ours, the MCP SDK, zod's 190, hono, micromark...);
// resolving, reading and compiling them one by one was ~40% of the time from `svc serve` to its
// first tools/list answer. esbuild writes the serve command, with everything it imports, over tsc's
// dist/cli/commands/serve.js (the CLI's `serve` entry loads it as before); what the runtime imports
// only when asked (tracing, metrics, limits, search...) stays in chunks beside it, loaded on use.
// OpenTelemetry's SDK stays a package import: tracing is opt-in and the SDK is large.
//
// A plain `tsc -p tsconfig.build.json` afterwards writes the unbundled serve.js back: slower, never stale.
// Deterministic: the same sources and lockfile give the same bytes (build-id.json hashes them).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const OUTDIR = 'dist/cli/commands';
const CHUNKS = 'serve-chunks';

// CommonJS packages in the bundle (prom-client, gray-matter) require() Node's built-ins: an ES
// module has no require, so each output file makes one for esbuild's require shim to find.
const REQUIRE =
  "import { createRequire as svcCreateRequire } from 'node:module';\nconst require = svcCreateRequire(import.meta.url);";

/**
 * gray-matter (folder/frontmatter.ts) only splits the fences: svc always hands it its own YAML
 * engine, so gray-matter's default one, js-yaml, never runs. Loading it still cost ~25 ms of
 * every boot, most of it esprima, which js-yaml requires from node_modules in a way no bundler
 * can see. In the bundle js-yaml is a stub that says so if it is ever called.
 */
const noJsYaml = {
  name: 'svc-no-js-yaml',
  setup(b) {
    b.onResolve({ filter: /^js-yaml$/ }, (args) =>
      /[\\/]gray-matter[\\/]/.test(args.importer) ? { path: 'js-yaml', namespace: 'svc-stub' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'svc-stub' }, () => ({
      contents: `const unused = () => { throw new Error('js-yaml is not in svc serve: svc parses frontmatter with its own YAML engine'); };
module.exports = { safeLoad: unused, safeDump: unused };`,
      loader: 'js',
    }));
  },
};

/** Bundles cli/commands/serve.ts into dist/cli/commands/serve.js (and serve-chunks/) under root. */
export async function bundleServe(root) {
  rmSync(join(root, OUTDIR, CHUNKS), { recursive: true, force: true });
  // The schema check cache's fingerprint of the checker, from the compiled folder/ beside the bundle
  // (tsc has just written it) and the packages bundled: what `svc validate` computes at run time.
  const { checkerCodeHash } = await import(
    pathToFileURL(join(root, 'dist/folder/schema-check-cache.js')).href
  );
  await build({
    absWorkingDir: root,
    entryPoints: { serve: 'cli/commands/serve.ts' },
    outdir: OUTDIR,
    chunkNames: `${CHUNKS}/[name]-[hash]`,
    allowOverwrite: true,
    bundle: true,
    splitting: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    // The tracing SDK stays a package import (opt-in, large); @opentelemetry/api is bundled, as
    // prom-client requires it at boot (it keeps its state in a global, shared with the SDK's copy).
    external: [
      '@opentelemetry/core',
      '@opentelemetry/exporter-trace-otlp-http',
      '@opentelemetry/resources',
      '@opentelemetry/sdk-trace-base',
    ],
    banner: { js: REQUIRE },
    plugins: [noJsYaml],
    define: { SVC_CHECKER_CODE_HASH: JSON.stringify(checkerCodeHash()) },
    legalComments: 'eof',
    charset: 'utf8',
    logLevel: 'warning',
  });
}
