import path from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import { type ImportResult, importFolder, writeManualFolder } from '../../generator/import/index.js';
import { initialConfig, serverIdFrom } from '../../generator/init/index.js';
import type { Auth, SvcConfig } from '../../schemas/types.js';
import { AUTO_MAX_BYTES, AUTO_MAX_TOOLS } from '../../folder/discovery-mode.js';
import type { CliIo, Command } from '../../core/command.js';
import { EXIT } from '../../core/exit-codes.js';
import { fail } from '../../core/fail.js';
import { parseCommandArgs, requirePositional } from '../../core/parse-args.js';
import { appBuilderOrigin, initAppBuilder } from '../init-app-builder.js';
import { gitAccess } from '../git-access.js';
import { connectionProvider, gitSourceOf } from '../git-source-args.js';
import { formatChecklist } from '../print-checklist.js';

import { restoreModes, userFilesBeforeInit } from '../../folder/user-files.js';

const usage = `Usage:
  svc init <dir> --name <app name> --openapi <url|file> [options]
  svc init <dir> --name <app name> --git <repo url> --ref <branch> --path <file> [--content <dir>]
  svc init <dir> --name <app name> --raw-url <template> --ref <branch> --path <file>
  svc init <dir> --name <app name> --manual --base-url <url> [options]
  svc init <dir> --name <app name> --app-builder <app-id> [--branch <id>]... [options]

Creates a server folder. With --openapi the document is fetched and imported at once (every
tool arrives disabled); if it is unreachable or not valid OpenAPI/Swagger nothing is written.

Options:
  --openapi <url|file>        OpenAPI 3.x or Swagger 2.0 document (JSON or YAML)
  --content <dir>             a checkout holding Skills/ Prompts/ Widgets/ Resources/ Docs/
                              (with --git: that directory of the repository, '.' for its root)
  --git <url>                 a git repository over http(s): the branch --ref is fetched
                              (shallow) and --path read from it; SVC_GIT_TOKEN if it is private
  --raw-url <template>        one file through a URL with {ref} and {path}, e.g.
                              https://host/raw/{ref}/{path}; SVC_GIT_TOKEN is sent as Bearer.
                              Tools only: a raw URL cannot list content directories
  --ref <branch>  --path <file in the repository>   (with --git or --raw-url)
  --connection <id>           read through a stored connection (svc git): --git <owner/name>
                              for GitHub App and GitLab ones; --git <url> or --raw-url for a token
  --manual                    no document: tools are authored with \`svc tool add\`
  --app-builder <app-id>      an app-builder (Bubble) app: one folder per reachable branch
                              (<dir>/live, <dir>/main), unverified until \`svc verify <dir>\`
  --branch <id>               app-builder: also the version served at /version-<id>/ (repeatable)
  --custom-domain <host>      app-builder: the custom Live domain (default: detected from
                              /api/1.1/meta)
  --app-builder-origin <url>  app-builder: the platform origin, {app} for the app id (default
                              https://{app}.bubbleapps.io, or SVC_APP_BUILDER_ORIGIN)
  --verification-token <t>    app-builder: the ownership token (16-64 of a-z 0-9; default
                              SVC_VERIFICATION_TOKEN, else a random one): given, two runs
                              write byte-identical folders
  --base-url <url>            API base URL (default: the document's server)
  --auth <mode>               none | api_key | bearer | basic | user_oauth (default none)
  --api-key-in <where>        header | query (api_key only, default header)
  --api-key-name <name>       header or query parameter name (api_key only)
  --server-id <id>            id used in /mcp/<id> (default: from the folder name)
  --description <text>  --logo-url <url>  --website <url>
  --allow-external-refs       fetch external $refs of the document: http(s) ones for a URL,
                              files under its directory for a file
  --force                     write into a directory that already holds files; every file
                              there is kept as it is, even where svc would write its own
  --compact                   short tool descriptions (default: whole, HTML as Markdown);
                              recorded in config.yaml. One tool: \`compact: true\` in its file
  --json                      print the result as JSON (for CI)

The upstream secret is never written: set SVC_UPSTREAM_SECRET where the runtime runs (for
basic auth also SVC_UPSTREAM_USER, or put user:password in SVC_UPSTREAM_SECRET).`;

/** init --force: the generated files left out because the user's file was kept at that path. */
function keptNote(kept: readonly string[] | undefined): string {
  if (!kept || kept.length === 0) return '';
  return `Kept your ${kept.join(', ')}: svc did not write its own ${kept.length === 1 ? 'file' : 'files'} there.\n`;
}

export const initCommand: Command = {
  name: 'init',
  summary: 'create a server folder from an OpenAPI document or for a manual app',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs('init', argv, {
      name: { type: 'string' },
      openapi: { type: 'string' },
      git: { type: 'string' },
      connection: { type: 'string' },
      'raw-url': { type: 'string' },
      ref: { type: 'string' },
      path: { type: 'string' },
      content: { type: 'string' },
      manual: { type: 'boolean' },
      'app-builder': { type: 'string' },
      branch: { type: 'string', multiple: true },
      'custom-domain': { type: 'string' },
      'app-builder-origin': { type: 'string' },
      'verification-token': { type: 'string' },
      'base-url': { type: 'string' },
      auth: { type: 'string' },
      'api-key-in': { type: 'string' },
      'api-key-name': { type: 'string' },
      'server-id': { type: 'string' },
      description: { type: 'string' },
      'logo-url': { type: 'string' },
      website: { type: 'string' },
      'allow-external-refs': { type: 'boolean' },
      force: { type: 'boolean' },
      compact: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    const json = values.json ?? false;
    try {
      const dirArg = requirePositional('init', positionals, 0, 'the folder to create (svc init <dir>)');
      const dir = path.resolve(io.cwd, dirArg);
      const name = checkInitArgs(values);
      const git = gitSourceOf(
        'svc init',
        values,
        values.connection ? await connectionProvider(io, values.connection) : undefined,
      );
      if (values.manual && values.content) {
        throw new SvcError('USAGE', 'svc init: --content needs --openapi (a manual app imports nothing)');
      }
      const user = await userFilesBeforeInit(dir, values.force === true);
      const auth = authOf(values);
      if (values['app-builder']) {
        return await initAppBuilder(
          {
            dir,
            dirArg,
            name,
            serverId: values['server-id'] ?? serverIdFrom(path.basename(dir)),
            appId: values['app-builder'],
            extraBranches: values.branch ?? [],
            customDomain: values['custom-domain'],
            origin: appBuilderOrigin(values['app-builder-origin'], io),
            auth,
            description: values.description,
            logoUrl: values['logo-url'],
            website: values.website,
            ...(values.compact ? { compact: true } : {}),
            verificationToken: values['verification-token'],
            json,
          },
          io,
        );
      }
      // Paths are stored relative to the folder so `svc import` works from any directory.
      const relative = (p: string) => path.relative(dir, path.resolve(io.cwd, p)).split(path.sep).join('/');
      const openapi =
        values.openapi && (/^https?:\/\//i.test(values.openapi) ? values.openapi : relative(values.openapi));
      const config = initialConfig({
        name,
        serverId: values['server-id'] ?? serverIdFrom(path.basename(dir)),
        ...(openapi ? { openapi } : {}),
        ...(git ? { git } : {}),
        ...(values.content && !git ? { contentDir: relative(values.content) } : {}),
        ...(values['allow-external-refs'] ? { allowExternalRefs: true } : {}),
        ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
        auth,
        ...(values.description ? { description: values.description } : {}),
        ...(values.compact ? { compact: true } : {}),
        ...(values['logo-url'] ? { logoUrl: values['logo-url'] } : {}),
        ...(values.website ? { website: values.website } : {}),
      });
      if (!openapi && !git) {
        const kept = await writeManualFolder(dir, config, user?.files);
        if (user) await restoreModes(dir, user.modes);
        printManual(io, { dir, dirArg, config, kept, json });
        return EXIT.ok;
      }
      const result = await importFolder({
        dir,
        config,
        git: gitAccess(io),
        ...(user ? { userFiles: user.files } : {}),
      });
      if (user && result.status === 'complete') await restoreModes(dir, user.modes);
      return printImport(io, result, { dir, dirArg, name: config.app.name, json });
    } catch (error) {
      return fail(io, error, { json });
    }
  },
};

type InitValues = Partial<
  Record<'name' | 'openapi' | 'git' | 'raw-url' | 'content' | 'app-builder' | 'base-url', string>
> &
  Partial<
    Record<
      'custom-domain' | 'app-builder-origin' | 'verification-token' | 'auth' | 'api-key-in' | 'api-key-name',
      string
    >
  > & {
    branch?: string[];
    manual?: boolean;
    'allow-external-refs'?: boolean;
  };

/** The checks of the flags among themselves; the app's name. */
function checkInitArgs(values: InitValues): string {
  if (!values.name) throw new SvcError('USAGE', 'svc init: --name is required');
  const kinds = [values.openapi, values.git, values['raw-url'], values.manual, values['app-builder']];
  if (kinds.filter(Boolean).length !== 1) {
    throw new SvcError(
      'USAGE',
      'svc init: give exactly one of --openapi <url|file>, --git <url>, --raw-url <template>, --app-builder <app-id> or --manual',
    );
  }
  const appBuilderOnly = (
    ['branch', 'custom-domain', 'app-builder-origin', 'verification-token'] as const
  ).find((flag) => values[flag] !== undefined && !values['app-builder']);
  if (appBuilderOnly) throw new SvcError('USAGE', `svc init: --${appBuilderOnly} needs --app-builder`);
  if (values['app-builder'] && (values.content || values['base-url'] || values['allow-external-refs'])) {
    throw new SvcError(
      'USAGE',
      'svc init: --content, --base-url and --allow-external-refs do not apply to --app-builder (its URLs come from the app id)',
    );
  }
  return values.name;
}

function authOf(values: InitValues): Auth {
  const mode = values.auth ?? 'none';
  if (!['none', 'api_key', 'bearer', 'basic', 'user_oauth'].includes(mode)) {
    throw new SvcError(
      'USAGE',
      `svc init: --auth must be none, api_key, bearer, basic or user_oauth, not "${mode}"`,
    );
  }
  const apiKeyIn = values['api-key-in'];
  if (apiKeyIn !== undefined && apiKeyIn !== 'header' && apiKeyIn !== 'query') {
    throw new SvcError('USAGE', `svc init: --api-key-in must be header or query, not "${apiKeyIn}"`);
  }
  return {
    mode: mode as Auth['mode'],
    ...(apiKeyIn ? { apiKeyIn } : {}),
    ...(values['api-key-name'] ? { apiKeyName: values['api-key-name'] } : {}),
  } as Auth;
}

function printManual(
  io: CliIo,
  {
    dir,
    dirArg,
    config,
    kept,
    json,
  }: { dir: string; dirArg: string; config: SvcConfig; kept?: string[]; json: boolean },
): void {
  if (json) {
    io.stdout(
      `${JSON.stringify({ ok: true, dir, serverId: config.server.id, ...(kept ? { kept } : {}) }, null, 2)}\n`,
    );
    return;
  }
  io.stdout(
    `Created manual app "${config.app.name}" in ${dirArg}. Add tools with \`svc tool add ${dirArg}\`.\n`,
  );
  io.stdout(keptNote(kept));
}

function printImport(
  io: CliIo,
  result: ImportResult,
  { dir, dirArg, name, json }: { dir: string; dirArg: string; name: string; json: boolean },
): number {
  const kept = result.keptUserFiles;
  if (json) {
    const warnings = [...(result.authWarning ? [result.authWarning] : []), ...(result.warnings ?? [])];
    io.stdout(
      `${JSON.stringify({ ok: result.status === 'complete', dir, checklist: result.checklist, report: result.report, error: result.error?.toJSON(), ...(kept ? { kept } : {}), ...(result.authWarning || result.warnings ? { warnings } : {}) }, null, 2)}\n`,
    );
  } else {
    io.stdout(`Importing "${name}" into ${dirArg}\n${formatChecklist(result.checklist)}`);
    if (result.status === 'complete') io.stdout(keptNote(kept));
  }
  if (result.status === 'failed') return fail(io, result.error);
  if (result.authWarning) io.stderr(`warning: ${result.authWarning}\n`);
  for (const warning of result.warnings ?? []) io.stderr(`warning: ${warning}\n`);
  if (!json) {
    io.stdout(
      `Every tool arrives disabled: set \`enabled: true\` in ${dirArg}/Tools/<tool>.yaml, then \`svc serve ${dirArg}\`.\n` +
        `Discovery is auto (config.yaml \`discovery\`): up to ${AUTO_MAX_TOOLS} enabled tools and ${AUTO_MAX_BYTES / 1024} KB of tools/list are listed one by one; ` +
        `past that, clients get search_tools and call_tool, and a write found by search runs only after the person confirms. ` +
        `\`svc validate ${dirArg}\` shows the mode and the size of tools/list.\n`,
    );
  }
  return EXIT.ok;
}
