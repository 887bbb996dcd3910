import path from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import {
  DEFAULT_SERVER_NAME,
  type FolderFiles,
  type FolderModel,
  isManagedPath,
  writeFolder,
} from '../../folder/index.js';
import { type ImportResult, importFolder } from '../../generator/import/index.js';
import { planSource } from '../../generator/import/source-reader.js';
import { recordableLocation } from '../../generator/import/recordable-location.js';
import { appBuilderConfig } from '../../generator/init/index.js';
import {
  describeAppChange,
  describeProviderChange,
  planProviderChange,
  withoutOAuth,
} from '../../generator/init/provider-change.js';
import { parseDocument } from '../../generator/parse/index.js';
import { renderConfig, renderEmptyFolder } from '../../generator/render/index.js';
import { checkBranchDocument } from '../../generator/import/check-branch-document.js';
import { renderReportText } from '../../generator/report/index.js';
import { APP_BUILDER_SETUP_STEPS, detectCustomDomain } from '../../generator/sources/app-builder-source.js';
import {
  branchFolder,
  checkAppId,
  checkBranchId,
  LIVE_BRANCH,
  MAIN_BRANCH,
} from '../../generator/sources/app-builder-urls.js';
import { readOpenApiSource } from '../../generator/sources/index.js';
import type { SvcConfig } from '../../schemas/types.js';
import { type AppLayout, appLayoutOf } from '../../generator/import/app-builder-folders.js';
import { carriedFiles, changeAppProvider } from '../../generator/import/app-change.js';
import { describeRetired, finishInterruptedAppChange } from '../finish-app-change.js';
import type { CliIo, Command } from '../../core/command.js';
import { EXIT } from '../../core/exit-codes.js';
import { fail } from '../../core/fail.js';
import { gitAccess } from '../git-access.js';
import { connectionProvider, type GitSource, gitSourceOf } from '../git-source-args.js';
import { appBuilderOrigin } from '../init-app-builder.js';
import { openFolder } from '../../folder/open-folder.js';
import { parseCommandArgs, requirePositional } from '../../core/parse-args.js';
import { formatChecklist } from '../print-checklist.js';
import { notRoundTripping } from '../../folder/text-round-trip.js';
import { readUserFiles } from '../../folder/user-files.js';
import { verificationSteps } from '../verification-steps.js';
import { verificationTokenOf } from '../verification-token.js';
import { folderRelative } from './import.js';

const usage = `Usage:
  svc source set <dir> --openapi <url|file> [--base-url <url>] [--yes]
  svc source set <dir> --git <url> --ref <branch> --path <file> [--content <dir>] [--base-url <url>] [--yes]
  svc source set <dir> --raw-url <template> --ref <branch> --path <file> [--base-url <url>] [--yes]
                       (either with [--connection <id>], as for svc init)
  svc source set <dir> --app-builder <app-id> [--branch live|main|<id>] [--custom-domain <host>]
                       [--app-builder-origin <url>] [--verification-token <t>] [--yes]

Changes the source of a server folder. The new source is checked first: if it is
unreachable or not a valid document, nothing changes. A published server is refused
(\`svc unpublish <dir>\` first).

Same provider (a new document URL, or another repository, branch or path): the folder is re-imported from it, keeping enabled flags and
customizations as any re-import does. A new app id of an app-builder app needs verifying again.

A provider change (between OpenAPI, git and app-builder, or from a manual app) deletes every tool, the imported
document and the import history, and resets the OAuth configuration, so user_oauth fails closed
until it is set again. svc says what will go and does it only with --yes; then it imports from the
new source (an app-builder source once \`svc verify\` has found the token page).

An app-builder app in branch folders (\`svc init --app-builder\`) changes provider as a whole: give
the app folder or one of its branch folders (refused if one is published). The new server is the app
folder itself; once it is imported, svc deletes the files it wrote in every branch folder. Your own
files in the branch folder you named (else live/) move to the app folder (unless one of that name is
there already); those in the other branch folders stay where they are. A folder left empty goes.
Should the import fail, nothing at all has changed. Should svc be stopped after the import, before
the branch folders are retired, the next svc command that opens the app folder finishes the retiring
(journaled beside it in .<app folder>.svc-swap); \`svc source set\` then changes nothing else.`;

type Provider = SvcConfig['app']['provider'];

interface SourceSetValues {
  openapi?: string | undefined;
  'app-builder'?: string | undefined;
  branch?: string | undefined;
  'custom-domain'?: string | undefined;
  'app-builder-origin'?: string | undefined;
  'base-url'?: string | undefined;
  git?: string | undefined;
  'raw-url'?: string | undefined;
  ref?: string | undefined;
  path?: string | undefined;
  content?: string | undefined;
  connection?: string | undefined;
  'verification-token'?: string | undefined;
}

/**
 * The config with a git (or raw-URL) source, once its document is fetched and valid. The same
 * provider keeps the server's name; the base URL comes from the document on a provider change.
 */
async function withGitSource(
  config: SvcConfig,
  source: GitSource,
  dir: string,
  io: CliIo,
  baseUrl?: string,
): Promise<SvcConfig> {
  const previous = config.source.kind === 'git' ? config.source : undefined;
  // Another branch or path of a repository keeps its content directory unless --content says otherwise.
  if (previous?.contentDir && source.contentDir === undefined && source.provider !== 'raw')
    source = { ...source, contentDir: previous.contentDir };
  const read = await planSource(source, { dir, git: gitAccess(io) }).read();
  await parseDocument(read.document);
  const same = config.source.kind === 'git';
  return {
    ...config,
    app: { ...config.app, provider: 'git' },
    server: { ...config.server, name: same ? config.server.name : DEFAULT_SERVER_NAME },
    source,
    ...(baseUrl ? { apiBaseUrl: baseUrl.replace(/\/+$/, '') } : {}),
  };
}

/** The config with an OpenAPI document as its source, once the document is read and valid. */
async function withOpenApiSource(
  config: SvcConfig,
  location: string,
  dir: string,
  baseUrl?: string,
): Promise<SvcConfig> {
  if (recordableLocation(location) !== location) {
    throw new SvcError(
      'USAGE',
      'the URL carries a credential (user:password@ or a key/token query parameter) that config.yaml would record; serve the document without it',
      { place: { field: 'source.location' } },
    );
  }
  await parseDocument(await readOpenApiSource(location, { cwd: dir }));
  const previous = config.source.kind === 'openapi' ? config.source : undefined;
  return {
    ...config,
    app: { ...config.app, provider: 'openapi' },
    server: { ...config.server, name: previous ? config.server.name : DEFAULT_SERVER_NAME },
    source: {
      kind: 'openapi',
      location,
      ...(previous?.contentDir ? { contentDir: previous.contentDir } : {}),
    },
    ...(baseUrl ? { apiBaseUrl: baseUrl.replace(/\/+$/, '') } : {}),
  };
}

/**
 * The config with an app-builder app as its source, once the branch's Swagger document is
 * reachable. The same app keeps its verification; another app (or another provider) starts over.
 */
async function withAppBuilderSource(
  config: SvcConfig,
  values: SourceSetValues,
  io: CliIo,
): Promise<SvcConfig> {
  const appId = checkAppId(values['app-builder'] as string);
  const previous = config.source.kind === 'app_builder' ? config.source : undefined;
  const branchArg = values.branch ?? previous?.branch ?? LIVE_BRANCH;
  const branch = [LIVE_BRANCH, MAIN_BRANCH].includes(branchArg) ? branchArg : checkBranchId(branchArg);
  const platformOrigin = appBuilderOrigin(values['app-builder-origin'], io) ?? previous?.platformOrigin;
  const customDomain =
    values['custom-domain'] ??
    (await detectCustomDomain(appId, platformOrigin)).domain ??
    (previous?.appId === appId ? previous.customDomain : undefined);
  const place = { appId, branch, customDomain, platformOrigin };
  const check = await checkBranchDocument(place);
  if (!check.ok) {
    throw new SvcError(
      'SOURCE_UNREACHABLE',
      `the ${branchFolder(branch)} Swagger document of app "${appId}" is not reachable; nothing was changed`,
      {
        place: { url: check.url },
        details: [check.error.message, 'Setup on the platform:', ...APP_BUILDER_SETUP_STEPS],
      },
    );
  }
  const sameApp = previous?.appId === appId && previous.verificationToken !== undefined;
  const built = appBuilderConfig({
    name: config.app.name,
    serverId: config.server.id,
    place,
    verificationToken: sameApp
      ? (previous.verificationToken as string)
      : verificationTokenOf(values['verification-token'], io.env),
    verified: sameApp ? previous.verified === true : false,
    auth: {
      mode: config.auth.mode,
      ...(config.auth.apiKey ? { apiKeyIn: config.auth.apiKey.in, apiKeyName: config.auth.apiKey.name } : {}),
    },
  });
  return {
    ...config,
    app: { ...config.app, provider: 'app_builder' },
    server: { ...config.server, name: built.server.name },
    source: built.source,
    apiBaseUrl: built.apiBaseUrl,
  };
}

/**
 * A provider change writes the user's files under the paths svc manages (content items, a README
 * of theirs) back from text; one that is not UTF-8 text would come back mangled, so the change is
 * refused before anything is asked or touched.
 */
async function refuseMangling(rewrites: readonly { dir: string; files: FolderFiles }[]): Promise<void> {
  for (const { dir, files } of rewrites) {
    const bad = await notRoundTripping(dir, files);
    if (bad.length === 0) continue;
    throw new SvcError(
      'FOLDER_INVALID',
      `a provider change rewrites your files under ${[...new Set(bad.map((p) => p.split('/')[0]))].join(', ')}, and ${bad.length === 1 ? 'this one is' : 'these are'} not UTF-8 text: move ${bad.join(', ')} out of there first (nothing was changed)`,
      { place: { file: path.join(dir, bad[0] as string) } },
    );
  }
}

/** Prints an import's checklist, then its report; the exit code. */
function printImport(io: CliIo, dirArg: string, result: ImportResult): number {
  // What `svc import` prints: the checklist, then the report (its summary and every change).
  io.stdout(`Importing into ${dirArg}\n${formatChecklist(result.checklist)}`);
  if (result.status === 'complete') io.stdout(renderReportText(result.report));
  return result.status === 'failed' ? fail(io, result.error) : EXIT.ok;
}

/** Runs an import and prints its checklist; the exit code. */
async function importAndPrint(
  io: CliIo,
  dirArg: string,
  options: Parameters<typeof importFolder>[0],
): Promise<number> {
  return printImport(io, dirArg, await importFolder(options));
}

/**
 * A provider change of an app laid out in branch folders (generator/import/app-change.ts): the
 * import's checklist and report, then what retiring did.
 */
async function replaceApp(
  io: CliIo,
  layout: AppLayout,
  appLabel: string,
  config: SvcConfig,
  git: boolean,
): Promise<number> {
  let code: number = EXIT.ok;
  const { retirement, left } = await changeAppProvider({
    layout,
    config,
    ...(git ? { git: gitAccess(io) } : {}),
    onImported: (result) => {
      code = printImport(io, appLabel, result);
    },
    beforeRetire: (step) => appChangeSteps.beforeStep?.(step),
  });
  if (left === undefined) return code;
  io.stdout(`${describeRetired(appLabel, retirement, left).join('\n')}\n`);
  return code;
}

type SourceValues = Partial<
  Record<
    | 'openapi'
    | 'app-builder'
    | 'git'
    | 'raw-url'
    | 'content'
    | 'connection'
    | 'verification-token'
    | 'ref'
    | 'path'
    | 'base-url',
    string
  >
> & { yes?: boolean };

/** The checks of the flags among themselves; the git source they name, if any. */
async function checkSourceArgs(values: SourceValues, io: CliIo): Promise<GitSource | undefined> {
  const kinds = [values.openapi, values['app-builder'], values.git, values['raw-url']];
  if (kinds.filter(Boolean).length !== 1) {
    throw new SvcError(
      'USAGE',
      'svc source set: give exactly one of --openapi <url|file>, --git <url>, --raw-url <template> or --app-builder <app-id>',
    );
  }
  const git = gitSourceOf(
    'svc source set',
    values,
    values.connection ? await connectionProvider(io, values.connection) : undefined,
  );
  if (values['verification-token'] && !values['app-builder']) {
    throw new SvcError('USAGE', 'svc source set: --verification-token goes with --app-builder');
  }
  if (values.content && !git) {
    throw new SvcError('USAGE', 'svc source set: --content goes with --git (a directory of the repository)');
  }
  return git;
}

/** A published server keeps its source: it is unpublished first. */
function refusePublished(io: CliIo, folders: readonly { dir: string; folder: FolderModel }[]): void {
  for (const f of folders) {
    if (!f.folder.config.server.published) continue;
    const label = path.relative(io.cwd, f.dir) || '.';
    throw new SvcError(
      'PUBLISHED',
      `the server ${label} is published; unpublish it first (\`svc unpublish ${label}\`), then change its source`,
      { place: { file: path.join(f.dir, 'config.yaml'), field: 'server.published' } },
    );
  }
}

interface ProviderChange {
  dirArg: string;
  dir: string;
  files: FolderFiles;
  folder: FolderModel;
  layout: Awaited<ReturnType<typeof appLayoutOf>>;
  next: SvcConfig;
  from: Provider;
  to: Provider;
  git: GitSource | undefined;
  location: string | undefined;
  values: SourceValues;
}

/**
 * Says what a provider change deletes and, with --yes, makes it: a document source imports at
 * once (the exit code); an app-builder one writes the empty folder (the config it now holds).
 */
async function changeProvider(io: CliIo, change: ProviderChange): Promise<number | SvcConfig> {
  const { dirArg, dir, files, folder, layout, from, to, git, location, values } = change;
  let next = change.next;
  const plan = planProviderChange(files, folder);
  const appLabel = layout && (path.relative(io.cwd, layout.appDir) || '.');
  const what = layout
    ? describeAppChange(
        appLabel as string,
        layout.branches.map((b) => ({
          name: path.basename(b.dir),
          plan: planProviderChange(b.files, b.folder),
        })),
        path.basename(layout.primary.dir),
        from,
        to,
      )
    : describeProviderChange(plan, from, to);
  await refuseMangling(
    layout
      ? [
          { dir: layout.primary.dir, files: await carriedFiles(layout) },
          { dir: layout.appDir, files: (await readUserFiles(layout.appDir)).files },
        ]
      : [
          {
            dir,
            files: Object.fromEntries(Object.entries(plan.kept).filter(([p]) => isManagedPath(p))),
          },
        ],
  );
  if (!values.yes) {
    io.stderr(`${what.join('\n')}\n`);
    throw new SvcError(
      'USAGE',
      'a provider change deletes the tools and the import history: run again with --yes',
    );
  }
  io.stdout(`${what.join('\n')}\n`);
  next = withoutOAuth(next);
  if (location || git) {
    // A first import into the folder (the document names the base URL unless --base-url
    // did); the files that stay are written back as they are.
    if (!values['base-url']) next = { ...next, apiBaseUrl: '' };
    if (layout) return await replaceApp(io, layout, appLabel as string, next, git !== undefined);
    return await importAndPrint(io, dirArg, {
      dir,
      config: next,
      userFiles: plan.kept,
      ...(git ? { git: gitAccess(io) } : {}),
    });
  }
  const rendered = renderEmptyFolder(next);
  await writeFolder(dir, { ...rendered, ...plan.kept });
  return next;
}

/** A test's hook into a provider change of an app, to kill the process at a named step. */
export const appChangeSteps: { beforeStep?: (step: string) => void | Promise<void> } = {};

export const sourceSetCommand: Command = {
  name: 'source set',
  summary: 'change the source of a server folder (checked first; a provider change needs --yes)',
  usage,
  async run(argv, io) {
    try {
      const { values, positionals } = parseCommandArgs('source set', argv, {
        openapi: { type: 'string' },
        'app-builder': { type: 'string' },
        branch: { type: 'string' },
        'custom-domain': { type: 'string' },
        'app-builder-origin': { type: 'string' },
        'base-url': { type: 'string' },
        git: { type: 'string' },
        'raw-url': { type: 'string' },
        ref: { type: 'string' },
        path: { type: 'string' },
        content: { type: 'string' },
        connection: { type: 'string' },
        'verification-token': { type: 'string' },
        yes: { type: 'boolean' },
      });
      const dirArg = requirePositional('source set', positionals, 0, 'the server folder');
      // A provider change of an app killed between its import and its retiring is finished first, and alone.
      if (await finishInterruptedAppChange(io, path.resolve(io.cwd, dirArg))) {
        io.stdout('Nothing else was changed: run svc source set again for another change.\n');
        return EXIT.ok;
      }
      const git = await checkSourceArgs(values, io);
      // Away from app-builder, an app laid out in branch folders changes as a whole.
      const layout = values['app-builder'] ? undefined : await appLayoutOf(io.cwd, dirArg);
      const { dir, files, folder } = layout ? layout.primary : await openFolder(io.cwd, dirArg);
      const target = layout?.appDir ?? dir;
      const config = folder.config;
      refusePublished(io, layout?.branches ?? [{ dir, folder }]);
      const from: Provider = config.app.provider;
      const documentSource = values.openapi ? 'openapi' : git ? 'git' : undefined;
      if (values['base-url'] && (!documentSource || from === documentSource)) {
        throw new SvcError(
          'USAGE',
          'svc source set: --base-url applies when an app changes to an OpenAPI or git source; otherwise edit apiBaseUrl in config.yaml',
        );
      }

      // 1. The new source, checked before anything changes (fail closed).
      const location = values.openapi ? (folderRelative(io, target, values.openapi) as string) : undefined;
      let next = location
        ? await withOpenApiSource(config, location, target, values['base-url'])
        : git
          ? await withGitSource(config, git, target, io, values['base-url'])
          : await withAppBuilderSource(config, values, io);
      const to: Provider = next.app.provider;

      if (from === to && location) {
        // 2. Same provider, new document: a normal re-import, which keeps curation.
        return await importAndPrint(io, dirArg, { dir, location });
      }
      if (from === to && git) {
        // The same for another repository, branch or path: the folder's source is that one from
        // now on; should the import still fail, the old source stays recorded.
        await writeFolder(dir, { ...files, 'config.yaml': renderConfig(next) });
        const code = await importAndPrint(io, dirArg, { dir, git: gitAccess(io) });
        if (code !== EXIT.ok) await writeFolder(dir, files);
        return code;
      }
      if (from === to) {
        await writeFolder(dir, { ...files, 'config.yaml': renderConfig(next) });
      } else {
        // 3. A provider change: say what goes, and go on only with --yes.
        const changed = await changeProvider(io, {
          dirArg,
          dir,
          files,
          folder,
          layout,
          next,
          from,
          to,
          git,
          location,
          values,
        });
        if (typeof changed === 'number') return changed;
        next = changed;
      }

      // 4. An app-builder source imports once verified.
      const source = next.source;
      if (source.kind !== 'app_builder') return EXIT.ok;
      io.stdout(`Source changed to app-builder app "${source.appId}" (${branchFolder(source.branch)}).\n`);
      if (source.verified !== true) {
        io.stdout(`${verificationSteps(source.verificationToken as string, dirArg).join('\n')}\n`);
        io.stdout(`Then import: svc import ${dirArg}\n`);
        return EXIT.ok;
      }
      return await importAndPrint(io, dirArg, { dir });
    } catch (error) {
      return fail(io, error);
    }
  },
};
