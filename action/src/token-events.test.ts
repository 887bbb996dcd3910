import { describe, expect, it } from 'vitest';
import { sourceTokenAllowedOn, withheldOnEvent } from './token-events.js';

describe('sourceTokenAllowedOn', () => {
  it('allows the events that run only code already on a branch', () => {
    for (const e of ['push', 'schedule', 'workflow_dispatch', 'repository_dispatch', 'merge_group'])
      expect(sourceTokenAllowedOn(e), e).toBe(true);
  });

  it('refuses pull request events, comment and review events, workflow_run, unknown and missing names', () => {
    for (const e of [
      'pull_request',
      'pull_request_target',
      'pull_request_review',
      'pull_request_review_comment',
      'issue_comment',
      'workflow_run',
      'Push',
      '',
    ])
      expect(sourceTokenAllowedOn(e), e).toBe(false);
  });

  it('says why and what to do instead', () => {
    expect(withheldOnEvent('workflow_run')).toMatch(
      /^withheld here: the workflow_run event .* mode: pull_request/,
    );
    expect(withheldOnEvent('')).toContain('without GITHUB_EVENT_NAME');
  });
});
