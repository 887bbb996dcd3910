/**
 * The shape of svc's own re-import commit, shared by the GitHub Action (merge mode) and the control
 * service's import jobs: a first line, one `- <folder>: <summary>` line per changed folder, and a
 * marker trailer. A head commit carrying the trailer is svc's own, so a push it causes imports nothing.
 */
export const IMPORT_TRAILER = 'Svc-Import: true';

/** The first line of a re-import commit when none is configured (the Action's `commit-message`). */
export const DEFAULT_COMMIT_MESSAGE = 'chore(mcp): re-import API descriptions';

export function isOwnCommit(message: string): boolean {
  return message.split('\n').some((line) => line.trim() === IMPORT_TRAILER);
}

/** `first`, the summary line of every changed folder, and the trailer. */
export function importCommitMessage(
  first: string,
  folders: readonly { folder: string; summary: string }[],
): string {
  const lines = folders.map((f) => `- ${f.folder}: ${f.summary}`);
  return `${first}\n\n${lines.join('\n')}\n\n${IMPORT_TRAILER}\n`;
}
