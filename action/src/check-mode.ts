/**
 * Check mode (schedules, manual runs): a dry-run re-import of every server folder, to see whether the
 * sources moved; nothing is written, committed or commented.
 */
import { join, posix } from 'node:path';
import { countFolder, type FolderResult, folderAtHead } from './folder-result.js';
import { findServerFolders } from './folders.js';
import { listFiles, openLocalRepository } from '../../generator/sources/git/index.js';
import { renderResults } from './render.js';
import type { ModeEnv } from './run-action.js';

export async function runCheck({ inputs, ctx, engine, log, sourceAccess }: ModeEnv): Promise<{
  results: FolderResult[];
  markdown: string;
  changed: boolean;
}> {
  const cwd = ctx.workspace;
  const repo = await openLocalRepository(cwd);
  const folders = findServerFolders(await listFiles(repo, 'HEAD'), inputs.folders);
  const results: FolderResult[] = [];
  for (const folder of folders) {
    const { sources, result } = await folderAtHead(repo, folder, `${ctx.owner}/${ctx.repo}`);
    if (sources.remote || sources.document) {
      log(`svc: checking ${folder}`);
      const reimport = await engine.reimport({
        dir: join(cwd, ...posix.normalize(folder).split('/')),
        dryRun: true,
        git: sourceAccess,
      });
      result.reimport = reimport;
      if (reimport.status === 'failed')
        result.error = `re-import failed: ${reimport.error ?? reimport.summary}`;
      Object.assign(result, countFolder([], [], new Set(), reimport));
    }
    results.push(result);
  }
  const markdown = renderResults(results, {
    title: 'svc · source check',
    reimportHeading: 'A re-import would bring',
    noun: 'checked',
  });
  return { results, markdown, changed: results.some((r) => r.reimport?.changed === true) };
}
