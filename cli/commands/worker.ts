import path from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import type { Command } from '../../core/command.js';
import { EXIT } from '../../core/exit-codes.js';
import { fail } from '../../core/fail.js';
import { parseCommandArgs, requirePositional } from '../../core/parse-args.js';

/**
 * Cloudflare's limit on a Worker's size: 64 MiB uncompressed on every plan (since May 2026;
 * before, 3 MB free and 10 MB paid, gzip-compressed: still printed, for older accounts' habits).
 */
const SIZE_LIMIT = 64 * 1024 * 1024;
const FORMER_FREE = 3 * 1024 * 1024;
const FORMER_PAID = 10 * 1024 * 1024;

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(0)} KiB`;
}

export const workerBuildCommand: Command = {
  name: 'worker build',
  summary: 'bundle a server folder into a Cloudflare Worker (worker.mjs, wrangler.toml, workerd.capnp)',
  usage: `Usage: svc worker build <dir> --out <dir> [--no-minify]

Bundles the runtime with the folder (its served tools only) into one ES module for Cloudflare
Workers: <out>/worker.mjs, <out>/wrangler.toml (npx wrangler deploy) and <out>/workerd.capnp
(npx workerd serve <out>/workerd.capnp --socket-addr http=127.0.0.1:8787). The folder is checked
as svc serve checks it; the validators of its tool schemas are generated now, since a Worker
cannot compile them at run time. Rebuild after every change to the folder. See docs/workers.md.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs('worker build', argv, {
      out: { type: 'string' },
      'no-minify': { type: 'boolean' },
    });
    try {
      const dirArg = requirePositional('worker build', positionals, 0, 'the server folder');
      if (!values.out) throw new SvcError('USAGE', 'svc worker build: missing --out <dir>');
      const { buildWorker } = await import('../worker/build-worker.js');
      const out = path.resolve(io.cwd, values.out);
      const built = await buildWorker(path.resolve(io.cwd, dirArg), out, {
        minify: values['no-minify'] !== true,
      });
      const former =
        built.gzipBytes <= FORMER_FREE ? 'free plan' : built.gzipBytes <= FORMER_PAID ? 'paid plan' : 'over';
      io.stdout(
        `wrote ${built.files.map((f) => path.join(values.out!, f)).join(', ')}\n` +
          `${built.servedTools} tools, ${built.validators} schema validator${built.validators === 1 ? '' : 's'}; worker.mjs ${kib(built.bytes)} ` +
          `(Workers limit: ${kib(SIZE_LIMIT)}), ${kib(built.gzipBytes)} gzip-compressed (within the former limits: ${former})\n`,
      );
      return built.bytes <= SIZE_LIMIT ? EXIT.ok : EXIT.checkFailed;
    } catch (error) {
      return fail(io, error);
    }
  },
};
