import { describe, expect, it } from 'vitest';
import { findServerFolders, folderSources, globToRegExp, serverName, touches } from './folders.js';

describe('globToRegExp', () => {
  it('keeps * inside one segment and lets ** span segments', () => {
    expect(globToRegExp('mcp/*').test('mcp/petstore')).toBe(true);
    expect(globToRegExp('mcp/*').test('mcp/a/b')).toBe(false);
    expect(globToRegExp('**/mcp').test('x/y/mcp')).toBe(true);
    expect(globToRegExp('**/mcp').test('mcp')).toBe(true);
    expect(globToRegExp('servers/**').test('servers/a/b')).toBe(true);
    expect(globToRegExp('a.b').test('axb')).toBe(false);
  });
});

describe('findServerFolders', () => {
  const files = [
    'mcp/petstore/config.yaml',
    'mcp/petstore/Tools/list.yaml',
    'mcp/petstore/.svc/config.yaml',
    'mcp/notes.md',
    'mcp/empty/README.md',
    'other/svc/config.yaml',
    'config.yaml',
  ];
  it('finds folders with config.yaml that match, never inside .svc', () => {
    expect(findServerFolders(files, ['mcp/*'])).toEqual(['mcp/petstore']);
    expect(findServerFolders(files, ['mcp/*', 'other/*'])).toEqual(['mcp/petstore', 'other/svc']);
    expect(findServerFolders(files, ['.'])).toEqual(['.']);
  });
});

describe('folderSources and touches', () => {
  it('resolves an in-repository document and content directory against the folder', () => {
    const s = folderSources(
      'mcp/pets',
      'source:\n  kind: openapi\n  location: ../../specs/pets.yaml\n  contentDir: ../../content\n',
      'o/r',
    );
    expect(s).toEqual({ remote: false, document: 'specs/pets.yaml', contentDir: 'content' });
    expect(touches('mcp/pets', s, ['specs/pets.yaml'])).toBe(true);
    expect(touches('mcp/pets', s, ['content/Skills/a.md'])).toBe(true);
    expect(touches('mcp/pets', s, ['mcp/pets/Tools/x.yaml'])).toBe(true);
    expect(touches('mcp/pets', s, ['mcp/petstore/config.yaml', 'specs/other.yaml'])).toBe(false);
  });
  it('marks URL sources remote and ignores documents outside the repository', () => {
    expect(
      folderSources('mcp/a', 'source: {kind: openapi, location: "https://x.test/o.json"}', 'o/r'),
    ).toEqual({
      remote: true,
    });
    expect(folderSources('mcp/a', 'source: {kind: openapi, location: ../../../x.yaml}', 'o/r')).toEqual({
      remote: false,
    });
    expect(
      folderSources(
        'mcp/a',
        'source: {kind: git, provider: github, repository: O/R, branch: main, path: api.yaml}',
        'o/r',
      ),
    ).toEqual({ remote: false, document: 'api.yaml' });
    expect(folderSources('mcp/a', 'not: [valid', 'o/r')).toEqual({ remote: false });
  });
});

describe('serverName (the heading of a folder in comments and summaries)', () => {
  it('is the app name where the server has the default name, with a branch server beside it', () => {
    const config = (server: string) => `server:\n  id: pets\n  name: ${server}\napp:\n  name: Petstore\n`;
    expect(serverName(config('Default'))).toBe('Petstore');
    expect(serverName(config('main'))).toBe('Petstore (main)');
    expect(serverName('server:\n  name: Legacy\n')).toBe('Legacy');
    expect(serverName(undefined)).toBeUndefined();
  });
});
