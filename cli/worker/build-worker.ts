/**
 * `svc worker build`: a server folder → a Workers bundle. The folder is read and checked as
 * `svc serve` checks it, its served tools' validators are generated (tool-validators.ts), and
 * esbuild bundles runtime/workers/worker with both into one ES module, `worker.mjs`, beside a
 * `wrangler.toml` (deploy) and a `workerd.capnp` (run it locally with `workerd serve`).
 * Disabled and stale tools are left out of the bundle: a Worker cannot serve them anyway.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Plugin } from 'esbuild';
import { checkTools } from '../../folder/check-tools.js';
import { isServed } from '../../folder/served.js';
import type { FolderModel } from '../../folder/model.js';
import { folderCommit } from '../../runtime/folder-commit.js';
import { folderInvalid } from '../../folder/index.js';
import { loadFolderDir } from '../../runtime/load-source.js';
import { folderDigest } from '../../runtime/sync/snapshot-folder.js';
import { packageRoot } from '../../core/package-root.js';
import { generateToolValidators, type ToolValidators } from './tool-validators.js';
import { workerdConfig, wranglerToml } from './worker-config-files.js';

export interface WorkerBuildOptions {
  /** Leave the code readable (default: minified, as deployed). */
  minify?: boolean;
}

export interface WorkerBuild {
  files: string[];
  /** worker.mjs, as written and gzip-compressed (what the Workers size limit counts). */
  bytes: number;
  gzipBytes: number;
  servedTools: number;
  validators: number;
}

/** A sibling module of this one's tree, in the form this file runs from (.ts from source, .js from dist/). */
function ownModule(relative: string): string {
  const ext = path.extname(fileURLToPath(import.meta.url));
  return fileURLToPath(new URL(`${relative}${ext}`, import.meta.url));
}

const VALIDATOR = 'svc-validator:';

/** Resolves the generated validator modules, and bare Node built-ins to `node:` (workerd's nodejs_compat names). */
export function workerPlugin(validators: ToolValidators, resolveDir: string): Plugin {
  const builtins = new Set(builtinModules);
  return {
    name: 'svc-worker',
    setup(build) {
      build.onResolve({ filter: /^svc-validator:\d+$/ }, (args) => ({ path: args.path, namespace: 'svc' }));
      build.onLoad({ filter: /.*/, namespace: 'svc' }, (args) => ({
        contents: validators.modules[Number(args.path.slice(VALIDATOR.length))]!,
        loader: 'js',
        resolveDir,
      }));
      // CommonJS packages require() built-ins: esbuild's ES module output cannot, so such a require
      // gets a small module that imports the built-in; an import stays an import.
      build.onResolve({ filter: /^(node:)?[a-z_]+(\/[a-z_]+)?$/ }, (args) => {
        const name = args.path.replace(/^node:/, '');
        if (!builtins.has(name)) return undefined;
        if (args.kind === 'require-call') return { path: name, namespace: 'svc-builtin' };
        return { path: `node:${name}`, external: true };
      });
      build.onLoad({ filter: /.*/, namespace: 'svc-builtin' }, (args) => ({
        contents: `export * from 'node:${args.path}';`,
        loader: 'js',
      }));
    },
  };
}

/** The bundle's entry: the worker module, the folder as JSON and the validators' table. */
function entrySource(
  folder: FolderModel,
  digest: string,
  commit: string | undefined,
  validators: ToolValidators,
): string {
  const imports = validators.modules.map((_, i) => `import v${i} from '${VALIDATOR}${i}';`);
  const table = Object.entries(validators.table).map(([file, row]) => {
    const cell = (v: number | { error: string } | undefined) =>
      v === undefined ? 'undefined' : typeof v === 'number' ? `v${v}` : JSON.stringify(v);
    return `${JSON.stringify(file)}: { input: ${cell(row.input)}, output: ${cell(row.output)} }`;
  });
  return [
    `import { createWorker } from ${JSON.stringify(ownModule('../../runtime/workers/worker'))};`,
    ...imports,
    // JSON.parse of a string literal starts faster than the same object written as a literal.
    `const folder = JSON.parse(${JSON.stringify(JSON.stringify(folder))});`,
    `export default createWorker({ folder, digest: ${JSON.stringify(digest)}, ${commit ? `commit: ${JSON.stringify(commit)}, ` : ''}validators: {`,
    `  ${table.join(',\n  ')}`,
    '} });',
    '',
  ].join('\n');
}

/** Reads and checks the folder at `dir` (as `svc serve` does), then bundles it (bundleWorker). */
export async function buildWorker(
  dir: string,
  outDir: string,
  options: WorkerBuildOptions = {},
): Promise<WorkerBuild> {
  const { folder } = await loadFolderDir(dir);
  const { errors } = checkTools(folder);
  if (errors.length > 0) throw folderInvalid(errors, `the folder ${dir}`);
  const commit = await folderCommit(dir);
  return bundleWorker(folder, outDir, { ...options, ...(commit ? { commit } : {}) });
}

/** Writes the Workers bundle of a checked folder model into `outDir`. */
export async function bundleWorker(
  folder: FolderModel,
  outDir: string,
  options: WorkerBuildOptions & { commit?: string } = {},
): Promise<WorkerBuild> {
  const digest = folderDigest(folder);
  const served: FolderModel = { ...folder, tools: folder.tools.filter(isServed) };
  const validators = generateToolValidators(served, ownModule('../../folder/linear-pattern'));
  const root = packageRoot();
  // Loaded here only: esbuild is needed by this command alone.
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    stdin: {
      contents: entrySource(served, digest, options.commit, validators),
      resolveDir: root,
      sourcefile: 'svc-worker-entry.js',
      loader: 'js',
    },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'import'],
    minify: options.minify ?? true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
    plugins: [workerPlugin(validators, root)],
  });
  const code = result.outputFiles[0]!.contents;
  await mkdir(outDir, { recursive: true });
  const written = {
    'worker.mjs': code,
    'wrangler.toml': wranglerToml(folder.config.server.id),
    'workerd.capnp': workerdConfig(),
  };
  for (const [file, content] of Object.entries(written)) await writeFile(path.join(outDir, file), content);
  return {
    files: Object.keys(written),
    bytes: code.byteLength,
    gzipBytes: gzipSync(code).byteLength,
    servedTools: served.tools.length,
    validators: validators.modules.length,
  };
}
