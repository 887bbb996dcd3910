import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commitPaths, openLocalRepository, pushReplaying } from '../../generator/sources/git/index.js';
import { createTestRepo } from '../../generator/sources/testing/git-test-repo.js';
import { redact } from './run-action.js';
import { BOT, redactedGitError, workspaceRemote } from './workspace-git.js';

const TOKEN = 'ghs_workspace_secret';
const BASIC = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
const repo = createTestRepo();
afterAll(() => repo.cleanup());

describe('the workspace origin', () => {
  it('sends the github-token to the server the workflow runs on, and to no other', async () => {
    repo.write({ 'a.txt': 'a\n' });
    repo.commit('a');
    repo.git('push', '-q', 'origin', 'main');
    const url = await repo.serve({ authorize: (h) => h === BASIC });
    const server = new URL(url).origin;
    const push = async (serverUrl: string) => {
      const work = repo.checkout(mkdtempSync(join(repo.root, 'work-')));
      writeFileSync(join(work, 'b.txt'), `${serverUrl}\n`);
      const r = { ...(await openLocalRepository(work)), dir: work };
      await commitPaths(r, ['b.txt'], { message: 'b', author: BOT });
      return pushReplaying(r, {
        remote: 'origin',
        branch: 'main',
        access: workspaceRemote(TOKEN, serverUrl),
      });
    };
    // Another server (GITHUB_SERVER_URL elsewhere): the token is withheld and the push refused.
    const elsewhere = await push('https://github.com').catch((e: unknown) => redactedGitError(e, [TOKEN]));
    expect(elsewhere).toMatchObject({ code: 'GIT_FAILED', message: 'git failed: HTTP 401' });
    expect(repo.server()!.requests.every((r) => r.authorization === undefined)).toBe(true);
    const pushed = await push(server);
    expect(pushed.rebased).toBe(false);
    expect(repo.git('-C', repo.origin, 'rev-parse', 'main')).toBe(pushed.sha);
    expect(
      repo
        .server()!
        .requests.filter((r) => r.authorization !== undefined)
        .every((r) => r.authorization === BASIC),
    ).toBe(true);
  });
});

describe('redaction', () => {
  it('blanks secrets, raw and in the base64 of a Basic header', () => {
    expect(redact('token abc in abc', ['abc'])).toBe('token [REDACTED] in [REDACTED]');
    const header = Buffer.from('x-access-token:ghs_secret123456', 'utf8').toString('base64');
    expect(redact(`fatal: header AUTHORIZATION: basic ${header}`, ['ghs_secret123456'])).not.toContain(
      header,
    );
    const error = redactedGitError(new Error(`no ${header}`), ['ghs_secret123456']);
    expect(error.message).not.toContain(header);
  });
});
