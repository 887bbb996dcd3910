/**
 * One TypeScript entry bundled by esbuild into a single ESM file for Node 20, so that a test can
 * run it as its own process (killed mid-write, a pipe closed early, real signals) without
 * building the whole of dist/.
 */
import { type BuildOptions, build } from 'esbuild';

// Some CommonJS dependencies call require(); the ESM bundle is given one.
const REQUIRE_BANNER =
  "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";

/** Bundles `entryPoint` (relative to the working directory) into `outfile`; `options` are added. */
export async function bundleEntry(
  entryPoint: string,
  outfile: string,
  options: BuildOptions = {},
): Promise<void> {
  await build({
    entryPoints: [entryPoint],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'silent',
    banner: { js: REQUIRE_BANNER },
    ...options,
  });
}
