import path from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import { writeFolder } from '../../folder/index.js';
import { exportFolder } from '../../generator/render/index.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { fail } from '../fail.js';
import { openFolder } from '../open-folder.js';
import { parseCommandArgs, requirePositional } from '../parse-args.js';

export const exportCommand: Command = {
  name: 'export',
  summary: 'export a published server as {server, files} JSON or as a folder',
  usage: `Usage: svc export <dir> (--json | --out <dir>)

Exports a published server: --json prints {server, files}; --out <dir> writes the folder
without the import bookkeeping (.svc/). Secrets are never part of an export.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs('export', argv, {
      json: { type: 'boolean' },
      out: { type: 'string' },
    });
    try {
      const dirArg = requirePositional('export', positionals, 0, 'the server folder');
      if (Boolean(values.json) === Boolean(values.out)) {
        throw new SvcError('USAGE', 'svc export: give exactly one of --json or --out <dir>');
      }
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
      const exported = exportFolder(files);
      if (values.json) {
        io.stdout(`${JSON.stringify(exported, null, 2)}\n`);
      } else {
        const out = path.resolve(io.cwd, values.out as string);
        await writeFolder(out, exported.files);
        io.stdout(`Exported ${Object.keys(exported.files).length} files to ${values.out}\n`);
      }
      return EXIT.ok;
    } catch (error) {
      return fail(io, error);
    }
  },
};
