import path from 'node:path';
import { runImport } from '../../generator/import/index.js';
import { renderReportText } from '../../generator/report/index.js';
import type { Command, CliIo } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { fail } from '../fail.js';
import { parseCommandArgs, requirePositional } from '../parse-args.js';
import { gitAccess } from '../git-access.js';
import { formatChecklist } from '../print-checklist.js';

/** A path given on the command line, stored relative to the folder (as `svc init` does); URLs stay. */
export function folderRelative(io: CliIo, dir: string, location: string | undefined): string | undefined {
  if (location === undefined || /^https?:\/\//i.test(location)) return location;
  return path.relative(dir, path.resolve(io.cwd, location)).split(path.sep).join('/');
}

export const importCommand: Command = {
  name: 'import',
  summary: 're-import the source into a server folder (keeps enabled flags and customizations)',
  usage: [
    'Usage: svc import <dir> [--openapi <url|file>] [--content <dir>] [--allow-external-refs] [--compact] [--json]',
    '',
    'Re-reads the document recorded in <dir>/config.yaml (or the one given with --openapi, which',
    'config.yaml then records), merges it into the folder keeping every hand edit of a tool file',
    'that the new document leaves valid, records the import in <dir>/.svc/history/ and prints the',
    'checklist and the per-endpoint report. A failed import changes nothing but the history.',
    '',
    '--compact shortens every tool description (first sentence of each) and records it in',
    'config.yaml; remove `compact: true` there to get whole descriptions back.',
  ].join('\n'),
  async run(argv, io) {
    let json = false;
    try {
      const { values, positionals } = parseCommandArgs('import', argv, {
        openapi: { type: 'string' },
        content: { type: 'string' },
        'allow-external-refs': { type: 'boolean' },
        compact: { type: 'boolean' },
        json: { type: 'boolean' },
      });
      json = values.json === true;
      const dirArg = requirePositional('import', positionals, 0, 'the server folder (svc import <dir>)');
      const dir = path.resolve(io.cwd, dirArg);
      const location = folderRelative(io, dir, values.openapi);
      const contentDir = folderRelative(io, dir, values.content);
      const result = await runImport({
        dir,
        git: gitAccess(io),
        ...(location ? { location } : {}),
        ...(contentDir ? { contentDir } : {}),
        ...(values['allow-external-refs'] ? { allowExternalRefs: true } : {}),
        ...(values.compact ? { compact: true } : {}),
      });
      if (json) {
        io.stdout(
          `${JSON.stringify(
            {
              ok: result.status === 'complete',
              dir,
              changed: result.changed,
              checklist: result.checklist,
              report: result.report,
              ...(result.error ? { error: result.error.toJSON() } : {}),
            },
            null,
            2,
          )}\n`,
        );
      } else {
        io.stdout(`Importing into ${dirArg}\n${formatChecklist(result.checklist)}`);
        if (result.status === 'complete') io.stdout(renderReportText(result.report));
      }
      if (result.status === 'failed') {
        if (json) {
          io.stderr(`error: ${result.error?.describe() ?? 'import failed'}\n`);
          return EXIT.input;
        }
        return fail(io, result.error);
      }
      return EXIT.ok;
    } catch (error) {
      return fail(io, error, { json });
    }
  },
};
