import path from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import { readFolder } from '../../folder/index.js';
import { readHistory } from '../../generator/history/index.js';
import { renderReportMarkdown } from '../../generator/report/index.js';
import type { Command } from '../../core/command.js';
import { EXIT } from '../../core/exit-codes.js';
import { fail } from '../../core/fail.js';
import { parseCommandArgs, requirePositional } from '../../core/parse-args.js';

export const historyCommand: Command = {
  name: 'history',
  summary: 'list the imports recorded in a server folder',
  usage: [
    'Usage: svc history <dir> [<seq>] [--json]',
    '',
    'One line per import, newest last: when, status, whether anything changed, the document',
    'revision (and for a git source the commit) and the summary. --json prints the records (with their diff reports).',
    "With <seq>, prints that import's report as Markdown (or its record, with --json).",
  ].join('\n'),
  async run(argv, io) {
    let json = false;
    try {
      const { values, positionals } = parseCommandArgs('history', argv, { json: { type: 'boolean' } });
      json = values.json === true;
      const dirArg = requirePositional('history', positionals, 0, 'the server folder (svc history <dir>)');
      const records = readHistory(await readFolder(path.resolve(io.cwd, dirArg)));
      const seqArg = positionals[1];
      if (seqArg !== undefined) {
        const record = records.find((r) => String(r.seq) === seqArg);
        if (!record) throw new SvcError('USAGE', `svc history: no import #${seqArg} in ${dirArg}`);
        if (json) io.stdout(`${JSON.stringify(record, null, 2)}\n`);
        else if (record.report) io.stdout(renderReportMarkdown(record.report));
        else io.stdout(`#${record.seq} ${record.status}: ${record.summary}\n`);
        return EXIT.ok;
      }
      if (json) {
        io.stdout(`${JSON.stringify(records, null, 2)}\n`);
        return EXIT.ok;
      }
      if (records.length === 0) {
        io.stdout(`No imports recorded in ${dirArg}.\n`);
        return EXIT.ok;
      }
      const lines = records.map((r) => {
        const at = r.statusLog[r.statusLog.length - 1]?.at ?? '';
        const rev = r.revision?.documentSha256 ? r.revision.documentSha256.slice(0, 12) : '-'.repeat(12);
        // Git sources: the commit read, after the document's hash.
        const commit = r.revision?.gitCommit ? `  commit ${r.revision.gitCommit.slice(0, 12)}` : '';
        const status = r.status === 'complete' ? 'Complete' : 'Failed  ';
        return `#${String(r.seq).padEnd(4)} ${at}  ${status}  ${r.changed ? 'changed  ' : 'unchanged'}  ${rev}${commit}  ${r.summary}`;
      });
      io.stdout(`${lines.join('\n')}\n`);
      return EXIT.ok;
    } catch (error) {
      return fail(io, error, { json });
    }
  },
};
