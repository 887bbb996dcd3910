import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import { isServerFolder } from '../../folder/branch-folders.js';
import { readFolder } from '../../folder/read-folder.js';
import { cacheDir } from '../../folder/schema-check-cache.js';
import type { ImportOptions } from '../../generator/import/import-types.js';
import { renderReportText } from '../../generator/report/render-text.js';
import type { Command, CliIo } from '../../core/command.js';
import { EXIT } from '../../core/exit-codes.js';
import { fail } from '../../core/fail.js';
import { parseCommandArgs, requirePositional } from '../../core/parse-args.js';
import { gitAccess } from '../git-access.js';
import { formatChecklist } from '../print-checklist.js';

/** A path given on the command line, stored relative to the folder (as `svc init` does); URLs stay. */
export function folderRelative(io: CliIo, dir: string, location: string | undefined): string | undefined {
  if (location === undefined || /^https?:\/\//i.test(location)) return location;
  return path.relative(dir, path.resolve(io.cwd, location)).split(path.sep).join('/');
}

/** The app-builder branch folders directly inside `dir` (`live`, `main`, `version-<id>`), sorted. */
async function appBuilderBranchDirs(dir: string): Promise<string[]> {
  const found: string[] = [];
  // Loaded here: a plain import (replayed when unchanged) loads no content parser.
  const { loadFolder } = await import('../../folder/load-folder.js');
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const sub = path.join(dir, entry.name);
    if (!entry.isDirectory() || !(await isServerFolder(sub))) continue;
    const loaded = loadFolder(await readFolder(sub));
    if (loaded.ok && loaded.folder.config.source.kind === 'app_builder') found.push(sub);
  }
  return found;
}

/**
 * An import (or a dry run) as the CLI runs it: the folder read with blocking calls (nothing else
 * runs in this process meanwhile), the stat index in the user's cache directory; an unchanged
 * import proven by that index first (loading none of the planner or the writer), else importFolder.
 */
export async function runImport(io: CliIo, given: ImportOptions) {
  const cache = cacheDir(io.env);
  const opts: ImportOptions = { ...given, blocking: true, ...(cache ? { statCacheDir: cache } : {}) };
  const { replayQuick } = await import('../../generator/import/replay-quick.js');
  const quick = await replayQuick(opts);
  if (quick) return quick;
  const { importFolder } = await import('../../generator/import/import-folder.js');
  return importFolder(opts);
}

export const importCommand: Command = {
  name: 'import',
  summary: 're-import the source into a server folder (keeps enabled flags and customizations)',
  usage: [
    'Usage: svc import <dir> [--openapi <url|file>] [--content <dir>] [--allow-external-refs] [--compact] [--json]',
    '',
    'For an app-builder app, <dir> may be the folder holding its branch folders (live, main, …):',
    'each branch is imported on its own, with its own checklist.',
    '',
    'Re-reads the document recorded in <dir>/config.yaml (or the one given with --openapi, which',
    'config.yaml then records), merges it into the folder keeping every hand edit of a tool file',
    'that the new document leaves valid, records the import in <dir>/.svc/history/ and prints the',
    'checklist and the per-endpoint report. A failed import changes nothing but the history.',
    '',
    '--compact shortens every tool description (first sentence of each) and records it in',
    'config.yaml; remove `compact: true` there to get whole descriptions back.',
    '',
    'svc import --remote <serverId> [--control <url>] [--timeout <s>] [--json] asks the control',
    'service (--control or SVC_CONTROL_URL; workspace token in SVC_TOKEN) to re-import the server',
    'and follows the job until it is Complete or Failed (at most --timeout seconds, default 1800;',
    'the job goes on); the service commits the result to the tracked branch.',
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
        remote: { type: 'string' },
        control: { type: 'string' },
        timeout: { type: 'string' },
      });
      json = values.json === true;
      if (values.remote !== undefined) {
        const { openapi, content, compact, 'allow-external-refs': external, ...remote } = values;
        const local = positionals.length > 0 || [openapi, content, compact, external].some(Boolean);
        const { importRemote } = await import('../remote-import.js');
        return await importRemote({ ...remote, remote: values.remote, json, local }, io);
      }
      if (values.control !== undefined || values.timeout !== undefined)
        throw new SvcError('USAGE', 'svc import: --control and --timeout go with --remote <serverId>');
      const dirArg = requirePositional('import', positionals, 0, 'the server folder (svc import <dir>)');
      const dir = path.resolve(io.cwd, dirArg);
      // An app-builder app's folder holds one server folder per branch: each imports on its own.
      const branches = (await isServerFolder(dir)) ? [] : await appBuilderBranchDirs(dir);
      if (branches.length > 0) {
        if (json || values.openapi || values.content) {
          throw new SvcError(
            'USAGE',
            'svc import: with --json, --openapi or --content give one branch folder',
          );
        }
        let code: number = EXIT.ok;
        for (const branch of branches) {
          const rel = path.relative(io.cwd, branch) || '.';
          code = Math.max(code, await importCommand.run([rel, ...argv.filter((a) => a !== dirArg)], io));
        }
        return code;
      }
      const location = folderRelative(io, dir, values.openapi);
      const contentDir = folderRelative(io, dir, values.content);
      const result = await runImport(io, {
        dir,
        git: gitAccess(io),
        ...(location ? { location } : {}),
        ...(contentDir ? { contentDir } : {}),
        ...(values['allow-external-refs'] ? { allowExternalRefs: true } : {}),
        ...(values.compact ? { compact: true } : {}),
        ...(io.env.SVC_APP_BUILDER_ORIGIN ? { appBuilderOrigin: io.env.SVC_APP_BUILDER_ORIGIN } : {}),
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
              ...(result.warnings ? { warnings: result.warnings } : {}),
            },
            null,
            2,
          )}\n`,
        );
      } else {
        io.stdout(`Importing into ${dirArg}\n${formatChecklist(result.checklist)}`);
        if (result.status === 'complete') io.stdout(renderReportText(result.report));
      }
      for (const warning of result.warnings ?? []) io.stderr(`warning: ${warning}\n`);
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
