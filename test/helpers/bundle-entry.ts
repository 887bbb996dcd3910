/**
 * One TypeScript entry bundled by esbuild into a single ESM file for Node 20, so that a test can
 * run it as its own process (killed mid-write, a pipe closed early, real signals) without
 * building the whole of dist/.
 */
import { writeFile } from 'node:fs/promises';
import { type BuildOptions, build } from 'esbuild';

// Some CommonJS dependencies call require(); the ESM bundle is given one.
const REQUIRE_BANNER =
  "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";

/**
 * Bundles made so far in this worker, by entry and options. A worker runs file after file
 * (vitest.config.ts: isolate false) and the sources do not change during a run, so a second
 * file asking for the same bundle gets the same bytes without bundling again (seconds each).
 */
const made = new Map<string, Promise<Uint8Array>>();

/** Bundles `entryPoint` (relative to the working directory) into `outfile`; `options` are added. */
export async function bundleEntry(
  entryPoint: string,
  outfile: string,
  options: BuildOptions = {},
): Promise<void> {
  const key = JSON.stringify([process.cwd(), entryPoint, options]);
  let bytes = made.get(key);
  if (!bytes) {
    bytes = bundle(entryPoint, outfile, options);
    made.set(key, bytes);
    bytes.catch(() => made.delete(key));
  }
  await writeFile(outfile, await bytes);
}

async function bundle(entryPoint: string, outfile: string, options: BuildOptions): Promise<Uint8Array> {
  const result = await build({
    entryPoints: [entryPoint],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'silent',
    banner: { js: REQUIRE_BANNER },
    ...options,
    write: false,
  });
  const [only, ...more] = result.outputFiles;
  // One file, whose code does not depend on where it is written (its require() resolves from
  // wherever it is): the same bytes serve every outfile.
  if (!only || more.length > 0)
    throw new Error(`bundleEntry(${entryPoint}) made ${result.outputFiles.length} files`);
  return only.contents;
}
