import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { SvcError } from '../../core/svc-error.js';
// Not the report's index: the markdown renderer (and the tools/list cost it prints, with Ajv and
// re2js) is loaded only for --format markdown.
import { type FailOn, reportHits } from '../../generator/report/build-report.js';
import { renderReportText } from '../../generator/report/render-text.js';
import type { Command } from '../../core/command.js';
import { EXIT } from '../../core/exit-codes.js';
import { fail } from '../../core/fail.js';
import { gitAccess } from '../git-access.js';
import { parseCommandArgs, requirePositional } from '../../core/parse-args.js';
import { folderRelative, runImport } from './import.js';

const FORMATS = ['markdown', 'json', 'text'] as const;
const FAIL_ON: FailOn[] = ['breaking', 'warning', 'any'];

export const diffCommand: Command = {
  name: 'diff',
  summary: 'preview a re-import: the per-endpoint report, writing nothing',
  usage: [
    'Usage: svc diff <dir> [--openapi <url|file>] [--content <dir>] [--ref <commit>] [--format markdown|json|text]',
    '                [--fail-on breaking|warning|any] [--allow-external-refs] [--base <commit>]',
    '',
    'Computes what `svc import` would do and prints the report (default: text). Writes nothing.',
    'With --fail-on, exits 1 when a breaking change or a removal hits an endpoint that an enabled',
    'tool calls (breaking), when that or any other warning is reported (warning), or when anything',
    'changed at all (any). Changes to endpoints of disabled tools are reported but never fail.',
    '--ref previews a git source at another commit of its branch instead of the branch head.',
    '--base (in a git work tree, e.g. a merge-request pipeline) first shows what the commits since <commit>',
    "changed in the folder: tools renamed, removed or disabled, hand edits to an enabled tool's inputSchema,",
    'locations or annotations, and a committed re-import; --fail-on counts those too (JSON: "committed").',
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
        base: { type: 'string' },
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
      // A hand-kept (manual) folder has nothing to re-import: with --base, its committed change is the report.
      if (values.base && !location && (await isManual(dir))) {
        const committed = await committedSince(dir, values.base);
        io.stdout(
          format === 'json'
            ? `${JSON.stringify({ committed: committed.result }, null, 2)}\n`
            : `${committed.markdown}\n(manual source: nothing to re-import)\n`,
        );
        const hit = committedHits(committed.result, failOn as FailOn | undefined);
        if (hit) {
          io.stderr(`svc diff: --fail-on ${failOn}: ${hit}\n`);
          return EXIT.checkFailed;
        }
        return EXIT.ok;
      }
      const result = await runImport(io, {
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
      const committed = values.base ? await committedSince(dir, values.base) : undefined;
      if (format === 'json')
        io.stdout(
          `${JSON.stringify(committed ? { ...report, committed: committed.result } : report, null, 2)}\n`,
        );
      else {
        if (committed) io.stdout(`${committed.markdown}\n`);
        io.stdout(
          format === 'markdown'
            ? (await import('../../generator/report/render-markdown.js')).renderReportMarkdown(report)
            : renderReportText(report),
        );
      }
      const committedHit = committed ? committedHits(committed.result, failOn as FailOn) : undefined;
      if (failOn && committedHit) {
        io.stderr(`svc diff: --fail-on ${failOn}: ${committedHit}\n`);
        return EXIT.checkFailed;
      }
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

interface Committed {
  result: Awaited<
    ReturnType<typeof import('../../action/src/committed-change.js').committedChange>
  >['result'];
  markdown: string;
}

/** What the commits since `base` changed in the folder (the git work tree's HEAD against `base`). */
async function committedSince(dir: string, base: string): Promise<Committed> {
  // The committed diff is the GitHub Action's own (its modules ship in dist/action/).
  const [git, { committedChange }, { renderResults }] = await Promise.all([
    import('../../generator/sources/git/index.js'),
    import('../../action/src/committed-change.js'),
    import('../../action/src/render.js'),
  ]);
  let root: string;
  try {
    const repo = await git.openLocalRepository(dir);
    if (!repo.dir) throw new SvcError('USAGE', `${dir} is in a bare repository`);
    root = repo.dir;
    await git.resolveCommit(repo, base);
  } catch (cause) {
    throw new SvcError(
      'USAGE',
      `svc diff --base: ${base} is not a commit of the git work tree holding ${dir}`,
      {
        cause,
      },
    );
  }
  const rel =
    path
      .relative(await realpath(root), await realpath(dir))
      .split(path.sep)
      .join('/') || '.';
  const { result, enabled } = await committedChange({ repoDir: root, folder: rel, base });
  const markdown = renderResults([result], {
    title: `svc · committed since ${base.slice(0, 12)}`,
    reimportHeading: 'A re-import would bring',
    enabled: new Map([[rel, enabled]]),
    noun: 'compared',
  });
  return { result, markdown };
}

/** Why the committed change trips --fail-on, or undefined. */
function committedHits(r: Committed['result'], failOn: FailOn | undefined): string | undefined {
  if (!failOn) return undefined;
  if (r.breaking > 0) return `${r.breaking} committed breaking change(s) hit enabled tools`;
  if (failOn !== 'breaking' && r.warnings > 0) return `${r.warnings} committed warning(s)`;
  if (failOn === 'any' && (r.toolChanges.length > 0 || r.endpointChanges.length > 0))
    return 'the commits change tools or endpoints';
  return undefined;
}

/** Whether config.yaml names a manual source (unreadable: not manual; the import then says why). */
async function isManual(dir: string): Promise<boolean> {
  try {
    const { parse: parseYaml } = await import('yaml');
    const config = parseYaml(await readFile(path.join(dir, 'config.yaml'), 'utf8')) as {
      source?: { kind?: unknown };
    } | null;
    return config?.source?.kind === 'manual';
  } catch {
    return false;
  }
}
