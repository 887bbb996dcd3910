import { writeFolder } from '../../folder/index.js';
import { renderConfig } from '../../generator/render/index.js';
import type { Command } from '../../core/command.js';
import { EXIT } from '../../core/exit-codes.js';
import { fail } from '../../core/fail.js';
import { openFolder } from '../../folder/open-folder.js';
import { parseCommandArgs, requirePositional } from '../../core/parse-args.js';

function publication(name: 'publish' | 'unpublish', published: boolean): Command {
  return {
    name,
    summary: published ? 'mark the server published (export requires it)' : 'mark the server unpublished',
    usage: `Usage: svc ${name} <dir>\n\nSets server.published to ${published} in config.yaml.`,
    async run(argv, io) {
      const { positionals } = parseCommandArgs(name, argv, {});
      try {
        const dirArg = requirePositional(name, positionals, 0, 'the server folder');
        const { dir, files, folder } = await openFolder(io.cwd, dirArg);
        if (folder.config.server.published === published) {
          io.stdout(`${dirArg} is already ${published ? 'published' : 'unpublished'}\n`);
          return EXIT.ok;
        }
        const config = { ...folder.config, server: { ...folder.config.server, published } };
        await writeFolder(dir, { ...files, 'config.yaml': renderConfig(config) });
        io.stdout(`${dirArg} is now ${published ? 'published' : 'unpublished'}\n`);
        return EXIT.ok;
      } catch (error) {
        return fail(io, error);
      }
    },
  };
}

export const publishCommand = publication('publish', true);
export const unpublishCommand = publication('unpublish', false);
