import { Webhooks } from '@octokit/webhooks';
import { describe, expect, it } from 'vitest';
import {
  githubDecision,
  githubRepositoryUrls,
  gitlabDecision,
  normaliseRepositoryUrl,
} from './webhook-events.js';

describe('webhook decisions', () => {
  it('verifies GitHub’s documented test vector with @octokit/webhooks', async () => {
    const webhooks = new Webhooks({ secret: "It's a Secret to Everybody" });
    const sig = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(await webhooks.verify('Hello, World!', sig)).toBe(true);
    expect(await webhooks.verify('Hello, World?', sig)).toBe(false);
  });

  it('acts on a merged pull request only', () => {
    const pr = (action: string, merged: boolean) => ({
      action,
      pull_request: { merged, base: { ref: 'main' } },
    });
    expect(githubDecision('pull_request', pr('closed', true))).toEqual({ kind: 'merge', branch: 'main' });
    expect(githubDecision('pull_request', pr('closed', false)).kind).toBe('ignore');
    expect(githubDecision('pull_request', pr('opened', false)).kind).toBe('ignore');
    expect(githubDecision('push', pr('closed', true)).kind).toBe('ignore');
  });

  it('acts on a GitLab merge only', () => {
    const mr = (action: string) => ({
      object_kind: 'merge_request',
      object_attributes: { action, target_branch: 'dev' },
    });
    expect(gitlabDecision('Merge Request Hook', mr('merge'))).toEqual({ kind: 'merge', branch: 'dev' });
    expect(gitlabDecision('Merge Request Hook', mr('close')).kind).toBe('ignore');
    expect(gitlabDecision('Push Hook', { object_kind: 'push' }).kind).toBe('ignore');
  });

  it('matches the ways hosts name one repository', () => {
    const urls = githubRepositoryUrls({
      repository: { clone_url: 'https://github.com/Acme/APIs.git', ssh_url: 'git@github.com:Acme/APIs.git' },
    });
    expect(urls).toEqual(['github.com/acme/apis', 'github.com/acme/apis']);
    expect(normaliseRepositoryUrl('https://github.com/acme/apis/')).toBe('github.com/acme/apis');
  });
});
