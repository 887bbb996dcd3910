/**
 * The one pull-request comment the action owns: found by a hidden marker on its first line, created once,
 * then edited in place on every push. Comments are listed with pagination, so a long thread does not hide
 * ours; any other comment (even one quoting the marker further down) is never edited.
 */
import type { Octokit } from '@octokit/rest';

export const COMMENT_MARKER = '<!-- svc-report -->';
/** GitHub refuses bodies above 65,536 characters; keep a margin for the truncation note. */
export const MAX_COMMENT_CHARS = 65_000;

export interface StickyTarget {
  owner: string;
  repo: string;
  issueNumber: number;
}

export type CommentOutcome =
  | { action: 'created'; id: number }
  | { action: 'updated'; id: number }
  | { action: 'unchanged'; id: number }
  | { action: 'skipped' };

export function withMarker(body: string): string {
  return body.startsWith(COMMENT_MARKER) ? body : `${COMMENT_MARKER}\n${body}`;
}

/** GitHub refuses a job summary above 1 MiB (bytes; emoji take four): characters kept well under it. */
export const MAX_SUMMARY_CHARS = 900_000;

/** Cuts an over-long body at a line break and says where the full report is. */
export function fitComment(body: string, fullReportHint: string, max = MAX_COMMENT_CHARS): string {
  if (body.length <= max) return body;
  const note = `\n\n… the report was cut to fit a comment. ${fullReportHint}\n`;
  // Room for the note and for closing every <details> left open (an open one would swallow the note).
  const count = (text: string, tag: RegExp) => (text.match(tag) ?? []).length;
  const depth = count(body, /<details>/g);
  const room = max - note.length - depth * '\n</details>'.length;
  const cut = body.lastIndexOf('\n', room);
  let head = body.slice(0, cut > 0 ? cut : room);
  const open = count(head, /<details>/g) - count(head, /<\/details>/g);
  for (let i = 0; i < open; i++) head += '\n</details>';
  return head + note;
}

export async function findMarkedComment(
  octokit: Octokit,
  target: StickyTarget,
): Promise<{ id: number; body: string } | undefined> {
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    owner: target.owner,
    repo: target.repo,
    issue_number: target.issueNumber,
    per_page: 100,
  });
  const marked = comments.filter((c) => (c.body ?? '').startsWith(COMMENT_MARKER));
  // A bot (the workflow token's github-actions[bot], or an app) wrote ours; a person's marked comment is
  // used only when no bot's exists (a personal token's comments are authored by a person).
  const ours = marked.find((c) => c.user?.type === 'Bot') ?? marked[0];
  return ours ? { id: ours.id, body: ours.body ?? '' } : undefined;
}

/**
 * Creates or updates the marked comment. With `onlyIfExists`, a missing comment is not created (a pull
 * request that touches no server folder gets no new comment, but an earlier one is corrected).
 */
export async function upsertComment(
  octokit: Octokit,
  target: StickyTarget,
  body: string,
  opts: { onlyIfExists?: boolean } = {},
): Promise<CommentOutcome> {
  const text = withMarker(body);
  const existing = await findMarkedComment(octokit, target);
  if (existing) {
    if (existing.body === text) return { action: 'unchanged', id: existing.id };
    await octokit.rest.issues.updateComment({
      owner: target.owner,
      repo: target.repo,
      comment_id: existing.id,
      body: text,
    });
    return { action: 'updated', id: existing.id };
  }
  if (opts.onlyIfExists) return { action: 'skipped' };
  const created = await octokit.rest.issues.createComment({
    owner: target.owner,
    repo: target.repo,
    issue_number: target.issueNumber,
    body: text,
  });
  return { action: 'created', id: created.data.id };
}
