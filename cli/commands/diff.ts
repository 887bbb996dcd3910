import path from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import { runImport } from '../../generator/import/index.js';
import {
  type FailOn,
  renderReportMarkdown,
  renderReportText,
  reportHits,
} from '../../generator/report/index.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { fail } from '../fail.js';
import { gitAccess } from '../git-access.js';
import { parseCommandArgs, requirePositional } from '../parse-args.js';
import { folderRelative } from './import.js';

const FORMATS = ['markdown', 'json', 'text'] as const;
const FAIL_ON: FailOn[] = ['breaking', 'warning', 'any'];

export const diffCommand: Command = {
  name: 'diff',
  summary: 'preview a re-import: the per-endpoint report, writing nothing',
  usage: [
    'Usage: svc diff <dir> [--openapi <url|file>] [--content <dir>] [--ref <commit>] [--format markdown|json|text]',
    '                [--fail-on breaking|warning|any] [--allow-external-refs]',
    '',
    'Computes what `svc import` would do and prints the report (default: text). Writes nothing.',
    'With --fail-on, exits 1 when a breaking change or a removal hits an endpoint that an enabled',
    'tool calls (breaking), when that or any other warning is reported (warning), or when anything',
    'changed at all (any). Changes to endpoints of disabled tools are reported but never fail.',
    '--ref previews a git source at another commit of its branch instead of the branch head.',
  ].join('\n'),
  async run(argv, io) {
    let format: (typeof FORMATS)[number] = 'text';
    try {
      const { values, positionals } = parseCommandArgs('diff', argv, {
        openapi: { type: 'string' },
        content: { type: 'string' },
        ref: { type: 'string' },
        format: { type: 'string' },
        'fail-on': { type: 'string' },
        'allow-external-refs': { type: 'boolean' },
      });
      const dirArg = requirePositional('diff', positionals, 0, 'the server folder (svc diff <dir>)');
      if (values.format !== undefined) {
        if (!(FORMATS as readonly string[]).includes(values.format)) {
          throw new SvcError(
            'USAGE',
            `svc diff: --format must be markdown, json or text, not "${values.format}"`,
          );
        }
        format = values.format as (typeof FORMATS)[number];
      }
      const failOn = values['fail-on'];
      if (failOn !== undefined && !(FAIL_ON as string[]).includes(failOn)) {
        throw new SvcError('USAGE', `svc diff: --fail-on must be breaking, warning or any, not "${failOn}"`);
      }
      const dir = path.resolve(io.cwd, dirArg);
      const location = folderRelative(io, dir, values.openapi);
      const contentDir = folderRelative(io, dir, values.content);
      const result = await runImport({
        dir,
        git: gitAccess(io),
        dryRun: true,
        ...(values.ref ? { ref: values.ref } : {}),
        ...(location ? { location } : {}),
        ...(contentDir ? { contentDir } : {}),
        ...(values['allow-external-refs'] ? { allowExternalRefs: true } : {}),
      });
      if (result.status === 'failed') return fail(io, result.error, { json: format === 'json' });
      const report = result.report;
      if (format === 'json') io.stdout(`${JSON.stringify(report, null, 2)}\n`);
      else if (format === 'markdown') io.stdout(renderReportMarkdown(report));
      else io.stdout(renderReportText(report));
      if (failOn && reportHits(report, failOn as FailOn)) {
        io.stderr(`svc diff: --fail-on ${failOn}: ${report.summary}\n`);
        return EXIT.checkFailed;
      }
      return EXIT.ok;
    } catch (error) {
      return fail(io, error, { json: format === 'json' });
    }
  },
};
