/**
 * `svc tool list`, `svc tool enable`, `svc tool disable`: find and switch tools in a large folder without
 * opening hundreds of files. Matching is a plain, case-insensitive substring test (alternatives separated
 * by `|`), linear in the text: no pattern a user types can make it slow. Enabling edits only the `enabled`
 * line of each tool file, so comments and layout stay as people left them.
 */
import { SvcError } from '../../core/svc-error.js';
import type { ToolItem } from '../../folder/model.js';
import { writeFolder } from '../../folder/index.js';
import { patchYaml } from '../../generator/import/patch-yaml.js';
import { parse as parseYamlText } from 'yaml';
import type { Command } from '../../core/command.js';
import { didYouMean } from '../../core/closest-words.js';
import { EXIT } from '../../core/exit-codes.js';
import { fail } from '../../core/fail.js';
import { openFolder } from '../../folder/open-folder.js';
import { parseCommandArgs, requirePositional } from '../../core/parse-args.js';

/** The alternatives of a --grep value, lower-cased; empty ones dropped. */
export function grepTerms(pattern: string): string[] {
  return pattern
    .split('|')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t.length > 0);
}

/** Whether the tool's name, file key, endpoint ("GET /path") or operationId contains one of the terms. */
export function toolMatches(item: ToolItem, terms: readonly string[]): boolean {
  const t = item.tool;
  const haystack = [item.key, t.name, `${t.endpoint.method} ${t.endpoint.path}`, t.endpoint.operationId ?? '']
    .join('\n')
    .toLowerCase();
  return terms.some((term) => haystack.includes(term));
}

function endpointOf(item: ToolItem): string {
  return `${item.tool.endpoint.method} ${item.tool.endpoint.path}`;
}

/** The tool file with `enabled` set, changing only that line when it is a plain top-level line. */
export function setEnabled(text: string, enabled: boolean): string {
  const line = /^enabled:([ \t]*)(?:true|false)([ \t]*(?:#.*)?)$/m;
  if (line.test(text))
    return text.replace(line, (_m, sp: string, rest: string) => `enabled:${sp}${enabled}${rest}`);
  const value = parseYamlText(text) as Record<string, unknown>;
  const patched = patchYaml(text, { ...value, enabled });
  if (patched === undefined) throw new SvcError('INTERNAL', 'cannot edit the tool file');
  return patched;
}

export const toolListCommand: Command = {
  name: 'tool list',
  summary: 'list the tools of a server folder (--grep to filter, --enabled / --disabled)',
  usage: `Usage: svc tool list <dir> [--grep <text>] [--enabled | --disabled] [--json]

  --grep <text>   tools whose name, file, endpoint ("GET /pets") or operationId contains the text
                  (case-insensitive, plain text; a|b matches either)
  --enabled       only enabled tools;  --disabled  only disabled tools
  --json          one JSON array of {key, name, endpoint, enabled, stale}`,
  async run(argv, io) {
    try {
      const { values, positionals } = parseCommandArgs('tool list', argv, {
        grep: { type: 'string' },
        enabled: { type: 'boolean' },
        disabled: { type: 'boolean' },
        json: { type: 'boolean' },
      });
      const dirArg = requirePositional(
        'tool list',
        positionals,
        0,
        'the server folder (svc tool list <dir>)',
      );
      if (values.enabled && values.disabled)
        throw new SvcError('USAGE', 'svc tool list: --enabled and --disabled exclude each other');
      const { folder } = await openFolder(io.cwd, dirArg);
      const terms = values.grep !== undefined ? grepTerms(values.grep) : [];
      const tools = folder.tools
        .filter((t) => terms.length === 0 || toolMatches(t, terms))
        .filter((t) => (values.enabled ? t.tool.enabled : values.disabled ? !t.tool.enabled : true))
        .sort((a, b) => a.tool.name.localeCompare(b.tool.name));
      if (values.json) {
        const rows = tools.map((t) => ({
          key: t.key,
          name: t.tool.name,
          endpoint: endpointOf(t),
          enabled: t.tool.enabled,
          stale: t.tool.stale === true,
        }));
        io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
        return EXIT.ok;
      }
      const width = Math.min(48, Math.max(4, ...tools.map((t) => t.tool.name.length)));
      for (const t of tools) {
        const state = t.tool.enabled ? 'enabled ' : 'disabled';
        const file = t.key === t.tool.name ? '' : `  (Tools/${t.key}.yaml)`;
        io.stdout(
          `${state}  ${t.tool.name.padEnd(width)}  ${endpointOf(t)}${t.tool.stale ? '  [stale]' : ''}${file}\n`,
        );
      }
      const enabled = tools.filter((t) => t.tool.enabled).length;
      io.stderr(`${tools.length} of ${folder.tools.length} tools (${enabled} enabled)\n`);
      return EXIT.ok;
    } catch (error) {
      return fail(io, error);
    }
  },
};

function switchCommand(enable: boolean): Command {
  const verb = enable ? 'enable' : 'disable';
  return {
    name: `tool ${verb}`,
    summary: `${verb} tools by name or --grep (edits only the enabled line of each Tools/*.yaml)`,
    usage: `Usage: svc tool ${verb} <dir> <tool name or file>… | --grep <text>

  --grep <text>   every tool whose name, file, endpoint or operationId contains the text
                  (case-insensitive, plain text; a|b matches either)

Only the \`enabled:\` line of each matched Tools/<tool>.yaml changes; comments and layout stay.`,
    async run(argv, io) {
      try {
        const { values, positionals } = parseCommandArgs(`tool ${verb}`, argv, { grep: { type: 'string' } });
        const dirArg = requirePositional(`tool ${verb}`, positionals, 0, 'the server folder');
        const names = positionals.slice(1);
        if (names.length === 0 && values.grep === undefined)
          throw new SvcError('USAGE', `svc tool ${verb}: name the tools, or give --grep <text>`);
        const { dir, files, folder } = await openFolder(io.cwd, dirArg);
        const chosen = new Map<string, ToolItem>();
        const unknown: string[] = [];
        for (const name of names) {
          const found = folder.tools.find((t) => t.tool.name === name || t.key === name);
          if (found) chosen.set(found.key, found);
          else unknown.push(name);
        }
        if (unknown.length > 0) {
          const known = folder.tools.map((t) => t.tool.name);
          throw new SvcError(
            'USAGE',
            `svc tool ${verb}: no tool named ${unknown.map((u) => `"${u}"`).join(', ')}`,
            {
              details: unknown.map(
                (u) => `${u}:${didYouMean(u, known) || ' (svc tool list <dir> --grep … finds tools)'}`,
              ),
            },
          );
        }
        if (values.grep !== undefined) {
          const terms = grepTerms(values.grep);
          if (terms.length === 0) throw new SvcError('USAGE', `svc tool ${verb}: --grep needs some text`);
          for (const t of folder.tools) if (toolMatches(t, terms)) chosen.set(t.key, t);
          if (chosen.size === 0)
            throw new SvcError('USAGE', `svc tool ${verb}: no tool matches --grep "${values.grep}"`);
        }
        const edits: Record<string, string> = {};
        const items = [...chosen.values()].sort((a, b) => a.tool.name.localeCompare(b.tool.name));
        for (const t of items) {
          const text = files[t.file];
          if (t.tool.enabled === enable || text === undefined) continue;
          edits[t.file] = setEnabled(text, enable);
        }
        if (Object.keys(edits).length > 0) await writeFolder(dir, { ...files, ...edits });
        for (const t of items) {
          const was = t.tool.enabled === enable ? ` (already ${verb}d)` : '';
          io.stdout(
            `${verb}d ${t.tool.name}  ${endpointOf(t)}${t.tool.stale && enable ? '  [stale: its endpoint is gone]' : ''}${was}\n`,
          );
        }
        io.stderr(`${Object.keys(edits).length} tool file(s) changed\n`);
        return EXIT.ok;
      } catch (error) {
        return fail(io, error);
      }
    },
  };
}

export const toolEnableCommand = switchCommand(true);
export const toolDisableCommand = switchCommand(false);
