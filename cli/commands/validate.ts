import path from 'node:path';
import { checkTools, loadFolder, readFolder, skipUnloaded } from '../../folder/index.js';
import { cacheDir, openSchemaCheckCache } from '../../folder/schema-check-cache.js';
import type { FolderModel } from '../../folder/model.js';
import { compileToolCatalog, type Discovery } from '../../runtime/tool-catalog.js';
import type { Command } from '../../core/command.js';
import { EXIT } from '../../core/exit-codes.js';
import { fail } from '../../core/fail.js';
import { parseCommandArgs, requirePositional } from '../../core/parse-args.js';

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const kib = bytes / 1024;
  return kib < 1024
    ? `${kib.toFixed(1)} KiB (${bytes} bytes)`
    : `${(kib / 1024).toFixed(2)} MiB (${bytes} bytes)`;
}

function discoveryJson(d: Discovery | undefined) {
  if (!d) return undefined;
  return {
    setting: d.setting,
    mode: d.mode,
    ...(d.reason ? { reason: d.reason } : {}),
    toolsListBytes: d.listedBytes,
    allToolsListBytes: d.allBytes,
    servedTools: d.catalog.size,
  };
}

/** One line a reviewer reads: the mode the folder gets, why, and what tools/list costs in it. */
function describeDiscovery(d: Discovery, enabled: number): string {
  const why = d.setting === 'auto' ? ` (discovery: auto — ${d.reason})` : ` (discovery: ${d.setting})`;
  if (d.mode === 'all')
    return `tools/list: ${formatBytes(d.listedBytes)} for the ${enabled} enabled tool${enabled === 1 ? '' : 's'}, each listed${why}`;
  const pinned = [...d.catalog.values()].filter((t) => t.item.tool.pinned === true).length;
  return (
    `tools/list: ${formatBytes(d.listedBytes)} in search mode${why}: search_tools, call_tool and ${pinned} pinned tool${pinned === 1 ? '' : 's'}; ` +
    `${d.catalog.size} tools found by search (${formatBytes(d.allBytes)} if each were listed)`
  );
}

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check every file of a server folder against the schemas',
  usage: `Usage: svc validate <dir> [--json]

Checks config.yaml, every Tools/*.yaml and every content file against svc's JSON Schemas and
the rules between files (unique tool names, widgets that exist), then what makes each tool work:
its input and output schemas compile, every required name is a declared property, every
{var} of the endpoint path has a path location. The same checks gate what \`svc serve\` loads.
Exit 1 when a problem is found; each problem names the file, the line and the field.
Schemas found clean are remembered by content in SVC_CACHE_DIR (default $XDG_CACHE_HOME/svc or
~/.cache/svc; \`off\` to disable) and not compiled again by the same svc; problems are never cached.
Warnings (a stale tool; a problem in a tool that is not served, until it is enabled; a pattern
with a backreference or lookaround, which svc does not check since patterns are matched in linear
time) do not fail the check. Also reports the size of
tools/list for the enabled tools (what every client loads; shorten it with \`svc import --compact\`)
and the discovery mode the folder gets (config.yaml \`discovery: all | search | auto\`): in search
mode clients get search_tools, call_tool and the tools marked \`pinned: true\`.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs('validate', argv, { json: { type: 'boolean' } });
    try {
      const dirArg = requirePositional('validate', positionals, 0, 'the folder to check');
      // What loadFolder checks: .svc/ and Tools/openapi.json are not part of the check.
      const files = await readFolder(path.resolve(io.cwd, dirArg), {
        skip: skipUnloaded,
        blocking: true,
      });
      const loaded = loadFolder(files);
      // Schemas this machine found clean before are not compiled again (a problem is never cached).
      const cleanSchemas = openSchemaCheckCache(cacheDir(io.env));
      // The tools that did load are checked even when other files did not: every problem at once.
      const checked = checkTools(loaded.ok ? loaded.folder : ({ ...loaded.partial } as FolderModel), {
        files,
        compile: true,
        cleanSchemas,
      });
      cleanSchemas.save();
      const errors = loaded.ok ? checked.errors : [...loaded.errors, ...checked.errors];
      // What a client receives from tools/list, as the runtime builds it: the enabled tools only,
      // or in search mode the meta-tools and the pinned tools.
      const discovery =
        loaded.ok && errors.length === 0
          ? compileToolCatalog(loaded.folder, { searchIndex: false }).discovery
          : undefined;
      const listBytes = discovery?.listedBytes ?? 0;
      if (values.json) {
        const warnings = checked.warnings.map((w) => w.toJSON());
        io.stdout(
          `${JSON.stringify(errors.length === 0 && loaded.ok ? { ok: true, tools: loaded.folder.tools.length, toolsListBytes: listBytes, discovery: discoveryJson(discovery), warnings } : { ok: false, errors: errors.map((e) => e.toJSON()), warnings }, null, 2)}\n`,
        );
      }
      for (const warning of checked.warnings) io.stderr(`warning: ${warning.describe()}\n`);
      if (!loaded.ok || errors.length > 0) {
        for (const error of errors) io.stderr(`${error.describe()}\n`);
        io.stderr(`${errors.length} problem(s) in ${dirArg}\n`);
        return EXIT.checkFailed;
      }
      if (!values.json) {
        const { tools, skills, prompts, resources, docs, widgets } = loaded.folder;
        const enabled = tools.filter((t) => t.tool.enabled).length;
        io.stdout(
          `${dirArg} is valid: ${tools.length} tools (${enabled} enabled), ${skills.length} skills, ${prompts.length} prompts, ` +
            `${resources.length} resources, ${docs.length} docs, ${widgets.length} widgets\n` +
            `${describeDiscovery(discovery!, enabled)}\n`,
        );
      }
      return EXIT.ok;
    } catch (error) {
      return fail(io, error, { json: values.json ?? false });
    }
  },
};
