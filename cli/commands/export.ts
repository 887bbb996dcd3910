import path from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import { writeFolder } from '../../folder/index.js';
import { exportFolder } from '../../generator/render/index.js';
import type { FolderFiles } from '../../folder/model.js';
import type { Command, CliIo } from '../../core/command.js';
import { controlClientFrom } from '../control-client.js';
import { EXIT } from '../../core/exit-codes.js';
import { fail } from '../../core/fail.js';
import { openFolder } from '../../folder/open-folder.js';
import { parseCommandArgs, requirePositional } from '../../core/parse-args.js';
import { fetchRemoteExport } from '../remote-export.js';

export const exportCommand: Command = {
  name: 'export',
  summary: 'export a published server as {server, files} JSON or as a folder',
  usage: `Usage: svc export <dir> (--json | --out <dir>)
       svc export --remote <serverId> [--control <url>] (--json | --out <dir>)

Exports a published server: --json prints {server, files}; --out <dir> writes the folder
without the import bookkeeping (.svc/). Secrets are never part of an export.

--remote fetches the server's published export from the control service (--control <url> or
SVC_CONTROL_URL) with the workspace token in SVC_TOKEN; the workspace needs the paid plan.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs('export', argv, {
      json: { type: 'boolean' },
      out: { type: 'string' },
      remote: { type: 'string' },
      control: { type: 'string' },
    });
    try {
      if (Boolean(values.json) === Boolean(values.out)) {
        throw new SvcError('USAGE', 'svc export: give exactly one of --json or --out <dir>');
      }
      if (values.remote !== undefined) {
        if (positionals.length > 0)
          throw new SvcError('USAGE', 'svc export --remote <serverId>: give no folder, the service has it');
        const client = controlClientFrom('export', values.control, io);
        const exported = await fetchRemoteExport(client, values.remote);
        return await printExport(io, exported, values.out);
      }
      if (values.control !== undefined)
        throw new SvcError('USAGE', 'svc export: --control goes with --remote <serverId>');
      const dirArg = requirePositional('export', positionals, 0, 'the server folder');
      const { files, folder } = await openFolder(io.cwd, dirArg);
      if (!folder.config.server.published) {
        throw new SvcError(
          'NOT_PUBLISHED',
          `the server is not published; run \`svc publish ${dirArg}\` first`,
          {
            place: { file: path.join(dirArg, 'config.yaml'), field: 'server.published' },
          },
        );
      }
      return await printExport(io, exportFolder(files), values.out);
    } catch (error) {
      return fail(io, error);
    }
  },
};

/** --json (no `out`) prints the export; --out writes its files as a folder. */
async function printExport(
  io: CliIo,
  exported: { server: unknown; files: FolderFiles },
  out: string | undefined,
): Promise<number> {
  if (out === undefined) {
    io.stdout(`${JSON.stringify(exported, null, 2)}\n`);
  } else {
    await writeFolder(path.resolve(io.cwd, out), exported.files);
    io.stdout(`Exported ${Object.keys(exported.files).length} files to ${out}\n`);
  }
  return EXIT.ok;
}
