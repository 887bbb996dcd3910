import path from 'node:path';
import { loadFolder, readFolder } from '../../folder/index.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { fail } from '../fail.js';
import { parseCommandArgs, requirePositional } from '../parse-args.js';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check every file of a server folder against the schemas',
  usage: `Usage: svc validate <dir> [--json]

Checks config.yaml, every Tools/*.yaml and every content file against svc's JSON Schemas
(the ones named in each file's yaml-language-server line) and the rules between files
(unique tool names, widgets that exist). Exit 1 when a problem is found;
each problem names the file, the line and the field.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs('validate', argv, { json: { type: 'boolean' } });
    try {
      const dirArg = requirePositional('validate', positionals, 0, 'the folder to check');
      const files = await readFolder(path.resolve(io.cwd, dirArg));
      const loaded = loadFolder(files);
      if (values.json) {
        io.stdout(
          `${JSON.stringify(loaded.ok ? { ok: true, tools: loaded.folder.tools.length } : { ok: false, errors: loaded.errors.map((e) => e.toJSON()) }, null, 2)}\n`,
        );
      }
      if (!loaded.ok) {
        for (const error of loaded.errors) io.stderr(`${error.describe()}\n`);
        io.stderr(`${loaded.errors.length} problem(s) in ${dirArg}\n`);
        return EXIT.checkFailed;
      }
      if (!values.json) {
        const { tools, skills, prompts, resources, docs, widgets } = loaded.folder;
        const enabled = tools.filter((t) => t.tool.enabled).length;
        io.stdout(
          `${dirArg} is valid: ${tools.length} tools (${enabled} enabled), ${skills.length} skills, ${prompts.length} prompts, ` +
            `${resources.length} resources, ${docs.length} docs, ${widgets.length} widgets\n`,
        );
      }
      return EXIT.ok;
    } catch (error) {
      return fail(io, error, { json: values.json ?? false });
    }
  },
};
