/**
 * Merge mode: on a push to the tracked branch, re-import every server folder and, when an import changed
 * the folder, commit the changed folders in one commit that carries the summary and a marker trailer, then
 * push. The action's own commit never triggers another import: a head commit with the trailer is skipped
 * (GITHUB_TOKEN pushes do not start workflows either, but a personal token's would).
 */
import { join, posix } from 'node:path';
import { IMPORT_TRAILER, importCommitMessage, isOwnCommit } from '../../generator/import/import-commit.js';
import { countFolder, type FolderResult, folderAtHead } from './folder-result.js';
import { findServerFolders } from './folders.js';
import {
  commitMessage as readCommitMessage,
  commitPaths,
  listFiles,
  openLocalRepository,
  pushReplaying,
} from '../../generator/sources/git/index.js';
import { renderResults } from './render.js';
import type { ModeEnv } from './run-action.js';
import { BOT, redactedGitError, workspaceRemote } from './workspace-git.js';

export { IMPORT_TRAILER, isOwnCommit };

export function commitMessage(first: string, results: readonly FolderResult[]): string {
  return importCommitMessage(
    first,
    results
      .filter((r) => r.reimport?.changed && r.reimport.status === 'complete')
      .map((r) => ({ folder: r.folder, summary: r.reimport?.summary ?? '' })),
  );
}

export async function runMerge(
  { inputs, ctx, engine, log, sourceAccess }: ModeEnv,
  secrets: readonly string[],
): Promise<{ results: FolderResult[]; markdown: string; commit?: string; skipped?: string }> {
  const cwd = ctx.workspace;
  const repo = await openLocalRepository(cwd);
  const message = ctx.headCommitMessage ?? (await readCommitMessage(repo, 'HEAD'));
  if (isOwnCommit(message)) {
    const skipped = 'the head commit is the action’s own re-import commit';
    log(`svc: skipping: ${skipped}`);
    return { results: [], markdown: `### svc · re-import\n\nSkipped: ${skipped}.\n`, skipped };
  }
  const branch = ctx.ref.replace(/^refs\/heads\//, '');
  const folders = findServerFolders(await listFiles(repo, 'HEAD'), inputs.folders);
  const results: FolderResult[] = [];
  for (const folder of folders) {
    const dir = join(cwd, ...posix.normalize(folder).split('/'));
    const { sources, result } = await folderAtHead(repo, folder, `${ctx.owner}/${ctx.repo}`);
    if (!sources.remote && !sources.document) {
      log(`svc: ${folder}: no source to re-import (manual folder)`);
      results.push(result);
      continue;
    }
    log(`svc: re-importing ${folder}`);
    const reimport = await engine.reimport({ dir, dryRun: false, git: sourceAccess });
    result.reimport = reimport;
    if (reimport.status === 'failed')
      result.error = `re-import failed: ${reimport.error ?? reimport.summary}`;
    Object.assign(result, countFolder([], [], new Set(), reimport));
    results.push(result);
  }
  const changedFolders = results.filter((r) => r.reimport?.status === 'complete' && r.reimport.changed);
  let commit: string | undefined;
  if (changedFolders.length > 0) {
    commit = await commitPaths(
      { ...repo, dir: cwd },
      changedFolders.map((r) => r.folder),
      { message: commitMessage(inputs.commitMessage, results), author: BOT },
    );
    if (commit) {
      log(`svc: committed ${commit.slice(0, 7)}; pushing to ${branch}`);
      const pushed = await pushReplaying(
        { ...repo, dir: cwd },
        { remote: 'origin', branch, access: workspaceRemote(inputs.token, ctx.serverUrl) },
      ).catch((error: unknown) => {
        throw redactedGitError(error, secrets);
      });
      if (pushed.rebased) log(`svc: ${branch} had moved; replayed the commit as ${pushed.sha.slice(0, 7)}`);
      commit = pushed.sha;
    }
  } else log('svc: nothing changed; no commit');
  const markdown = renderResults(results, {
    title: 'svc · re-import on merge',
    reimportHeading: 'Re-import',
    noun: 're-imported',
    footer: commit ? `Committed ${commit.slice(0, 7)} to ${branch}.` : 'Nothing changed; no commit.',
  });
  return { results, markdown, ...(commit ? { commit } : {}) };
}
