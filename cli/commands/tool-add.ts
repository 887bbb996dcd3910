import { SvcError } from '../../core/svc-error.js';
import { writeFolder } from '../../folder/index.js';
import { manualTool, parseParamSpec } from '../../generator/manual/index.js';
import { renderTool } from '../../generator/render/index.js';
import type { Command } from '../../core/command.js';
import { EXIT } from '../../core/exit-codes.js';
import { fail } from '../../core/fail.js';
import { openFolder } from '../../folder/open-folder.js';
import { parseCommandArgs, requirePositional } from '../../core/parse-args.js';

export const toolAddCommand: Command = {
  name: 'tool add',
  summary: 'author a tool by hand (method, path, parameters)',
  usage: `Usage: svc tool add <dir> --method <GET|POST|…> --path </path/{id}> [--param spec]… [options]

  --param name:in:type[:required|optional[:description]]
          in: path | query | header | cookie | body   type: string | integer | number | boolean | array | object
          e.g. --param id:path:string:required --param q:query:string --param text:body:string:required
  --name <tool name>       default: from method and path
  --description <text>
  --enable                 enable the tool at once (default: disabled)

The tool calls the app's API base URL with the app's auth. Re-import never touches it.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs('tool add', argv, {
      method: { type: 'string' },
      path: { type: 'string' },
      param: { type: 'string', multiple: true },
      name: { type: 'string' },
      description: { type: 'string' },
      enable: { type: 'boolean' },
    });
    try {
      const dirArg = requirePositional('tool add', positionals, 0, 'the server folder');
      if (!values.method || !values.path)
        throw new SvcError('USAGE', 'svc tool add: --method and --path are required');
      const { dir, files, folder } = await openFolder(io.cwd, dirArg);
      const tool = manualTool(
        {
          method: values.method,
          path: values.path,
          params: (values.param ?? []).map(parseParamSpec),
          ...(values.name ? { name: values.name } : {}),
          ...(values.description ? { description: values.description } : {}),
          enabled: values.enable ?? false,
        },
        folder.tools.reduce((max, t) => Math.max(max, t.tool.sortOrder + 1), 0),
      );
      const taken = folder.tools.find((t) => t.tool.name === tool.name || t.key === tool.name);
      if (taken) {
        throw new SvcError(
          'USAGE',
          `a tool named "${tool.name}" already exists (${taken.file}); pick another --name`,
        );
      }
      const file = `Tools/${tool.name}.yaml`;
      await writeFolder(dir, { ...files, [file]: renderTool(tool) });
      io.stdout(
        `Added ${tool.enabled ? 'enabled' : 'disabled'} tool ${tool.name} (${tool.endpoint.method} ${tool.endpoint.path}) in ${file}\n`,
      );
      return EXIT.ok;
    } catch (error) {
      return fail(io, error);
    }
  },
};
