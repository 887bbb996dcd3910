import { Octokit } from '@octokit/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeGitHub, startFakeGitHub } from '../testing/fake-github.js';
import { COMMENT_MARKER, fitComment, MAX_COMMENT_CHARS, upsertComment } from './comment.js';

let gh: FakeGitHub | undefined;
afterEach(async () => {
  await gh?.close();
  gh = undefined;
});

describe('upsertComment', () => {
  it('creates once, then edits the marked comment found past the first page; others untouched', async () => {
    gh = await startFakeGitHub({ owner: 'o', repo: 'r', token: 't0k' });
    const octokit = new Octokit({ auth: 't0k', baseUrl: gh.url });
    for (let i = 0; i < 130; i++) gh.addComment(7, `chatter ${i}`);
    gh.addComment(7, `quoting:\n${COMMENT_MARKER}`, 'mallory');
    const target = { owner: 'o', repo: 'r', issueNumber: 7 };
    const first = await upsertComment(octokit, target, 'v1');
    expect(first.action).toBe('created');
    const second = await upsertComment(octokit, target, 'v2');
    expect(second).toEqual({ action: 'updated', id: first.action === 'created' ? first.id : -1 });
    const third = await upsertComment(octokit, target, 'v2');
    expect(third.action).toBe('unchanged');
    const marked = gh.comments.filter((c) => c.body.startsWith(COMMENT_MARKER));
    expect(marked.map((c) => c.body)).toEqual([`${COMMENT_MARKER}\nv2`]);
    expect(gh.comments.filter((c) => c.body.startsWith('chatter')).length).toBe(130);
    expect(gh.comments.find((c) => c.user.login === 'mallory')?.body).toBe(`quoting:\n${COMMENT_MARKER}`);
    // 132 comments at 100 per page: the search had to follow the Link header to page 2.
    expect(gh.requests.some((r) => r.method === 'GET' && r.url.includes('page=2'))).toBe(true);
  });
  it("prefers the bot's marked comment over a person's earlier one", async () => {
    gh = await startFakeGitHub({ owner: 'o', repo: 'r' });
    const octokit = new Octokit({ baseUrl: gh.url });
    const decoy = gh.addComment(5, `${COMMENT_MARKER}\nwritten by a person`, 'mallory');
    const bot = gh.addComment(5, `${COMMENT_MARKER}\nold report`, 'github-actions[bot]');
    const outcome = await upsertComment(octokit, { owner: 'o', repo: 'r', issueNumber: 5 }, 'new report');
    expect(outcome).toEqual({ action: 'updated', id: bot.id });
    expect(gh.comments.find((c) => c.id === decoy.id)?.body).toBe(`${COMMENT_MARKER}\nwritten by a person`);
  });
  it('does not create a comment when told to update only', async () => {
    gh = await startFakeGitHub({ owner: 'o', repo: 'r' });
    const octokit = new Octokit({ baseUrl: gh.url });
    const outcome = await upsertComment(octokit, { owner: 'o', repo: 'r', issueNumber: 1 }, 'x', {
      onlyIfExists: true,
    });
    expect(outcome).toEqual({ action: 'skipped' });
    expect(gh.comments).toEqual([]);
  });
});

describe('fitComment', () => {
  it('cuts long bodies under the limit, closing open <details>', () => {
    const body = `<details>\n${'line of text\n'.repeat(10_000)}</details>`;
    const fitted = fitComment(body, 'See the job summary.');
    expect(fitted.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS);
    expect(fitted).toContain('See the job summary.');
    expect(fitted.match(/<\/details>/g)?.length).toBe(1);
    expect(fitComment('short', 'x')).toBe('short');
  });
  it('takes another limit (the job summary)', () => {
    const fitted = fitComment('a line\n'.repeat(1_000), 'the rest: svc-report.md', 500);
    expect(fitted.length).toBeLessThanOrEqual(500);
    expect(fitted).toContain('the rest: svc-report.md');
  });
});
