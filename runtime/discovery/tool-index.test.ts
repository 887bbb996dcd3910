import { describe, expect, it } from 'vitest';
import { buildToolIndex, type IndexedTool, words } from './tool-index.js';

const tool = (
  name: string,
  method: string,
  path: string,
  classification: string,
  title: string,
  parameters: string[] = [],
): IndexedTool => ({ name, method, path, classification, title, description: title, parameters });

const TOOLS: IndexedTool[] = [
  tool(
    'pulls_merge',
    'PUT',
    '/repos/{owner}/{repo}/pulls/{pull_number}/merge',
    'update',
    'Merge a pull request',
    ['merge_method'],
  ),
  tool('pulls_create', 'POST', '/repos/{owner}/{repo}/pulls', 'create', 'Create a pull request', [
    'title',
    'head',
    'base',
  ]),
  tool('pulls_list', 'GET', '/repos/{owner}/{repo}/pulls', 'list', 'List pull requests', ['state']),
  tool(
    'repos_list-for-authenticated-user',
    'GET',
    '/user/repos',
    'list',
    'List repositories for the authenticated user',
  ),
  tool('repos_delete', 'DELETE', '/repos/{owner}/{repo}', 'delete', 'Delete a repository'),
  tool(
    'issues_create-comment',
    'POST',
    '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    'create',
    'Create an issue comment',
    ['body'],
  ),
  tool(
    'issues_delete-comment',
    'DELETE',
    '/repos/{owner}/{repo}/issues/comments/{comment_id}',
    'delete',
    'Delete an issue comment',
  ),
];

const top = (query: string, limit = 3) =>
  buildToolIndex(TOOLS)
    .search(query, limit)
    .map((h) => h.name);

describe('words', () => {
  it('splits identifiers and prose the way people read them', () => {
    expect(words('createIssueComment')).toEqual(['create', 'Issue', 'Comment']);
    expect(words('repos_list-for-authenticated-user')).toEqual([
      'repos',
      'list',
      'for',
      'authenticated',
      'user',
    ]);
    expect(words('HTTPServerError /a/{id}')).toEqual(['HTTP', 'Server', 'Error', 'a', 'id']);
  });
});

describe('buildToolIndex', () => {
  it('finds a tool from the words a person uses, stemmed', () => {
    expect(top('merging pull requests')[0]).toBe('pulls_merge');
    expect(top('open a pull request')[0]).toBe('pulls_create');
  });

  it('reads "my" as the authenticated user and abbreviations as the words they stand for', () => {
    expect(top('list my repositories')[0]).toBe('repos_list-for-authenticated-user');
  });

  it('ranks the write the person asked for above one that shares the words', () => {
    expect(top('leave a comment on an issue')[0]).toBe('issues_create-comment');
    expect(top('remove an issue comment')[0]).toBe('issues_delete-comment');
  });

  it('is deterministic, caps the results and finds nothing for unrelated words', () => {
    const index = buildToolIndex(TOOLS);
    expect(index.search('pull request', 2)).toEqual(index.search('pull request', 2));
    expect(index.search('pull request', 2)).toHaveLength(2);
    expect(index.search('zebra xylophone', 5)).toEqual([]);
    expect(index.size).toBe(TOOLS.length);
  });
});
