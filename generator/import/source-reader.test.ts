import { describe, expect, test } from 'vitest';
import { planSource } from './source-reader.js';

const git = {
  kind: 'git' as const,
  provider: 'git' as const,
  repository: 'https://git.example.test/team/api.git',
  branch: 'main',
  path: 'openapi.yaml',
  contentDir: 'mcp',
};

describe('planSource', () => {
  test('a git source: named by repository, branch and path; its content directory is in the repository', () => {
    const plan = planSource(git, { dir: '/f' });
    expect(plan).toMatchObject({
      location: 'git+https://git.example.test/team/api.git#main:openapi.yaml',
      contentDir: 'mcp',
      toolsOnly: false,
    });
    expect(
      planSource(
        { ...git, provider: 'github', repository: 'team/api', connection: 'github-42' },
        { dir: '/f' },
      ).location,
    ).toBe('git+github-42:team/api#main:openapi.yaml');
  });

  test('a raw URL: the expanded URL, tools only', () => {
    const plan = planSource(
      {
        kind: 'git',
        provider: 'raw',
        rawUrlTemplate: 'https://h.test/raw/{ref}/{path}',
        branch: 'v2',
        path: 'a.yaml',
      },
      { dir: '/f' },
    );
    expect(plan).toMatchObject({ location: 'https://h.test/raw/v2/a.yaml', toolsOnly: true });
    expect(plan.contentDir).toBeUndefined();
  });

  test('--openapi wins over a git source; --ref and a disk --content are refused where they do not apply', () => {
    expect(planSource(git, { dir: '/f', location: 'doc.yaml' })).toMatchObject({ location: 'doc.yaml' });
    expect(() => planSource(git, { dir: '/f', contentDir: 'content' })).toThrow(
      /directory of the repository/,
    );
    expect(() => planSource({ kind: 'openapi', location: 'a.yaml' }, { dir: '/f', ref: 'abc1' })).toThrow(
      /--ref applies to a git repository source only/,
    );
  });
});
