import { describe, expect, it } from 'vitest';
import { diffTools, enabledEndpoints } from './tool-changes.js';

const tool = (name: string, enabled: boolean, path = '/pets', extra = '') =>
  `name: ${name}\ndescription: d\nenabled: ${enabled}\nsortOrder: 0\norigin: imported\nendpoint:\n  method: GET\n  path: ${path}\n${extra}`;

describe('diffTools', () => {
  it('classes renames and removals of enabled tools as breaking, disabling as a warning', () => {
    const base = {
      'Tools/a.yaml': tool('list_pets', true),
      'Tools/b.yaml': tool('get_pet', true, '/pets/{id}'),
      'Tools/c.yaml': tool('delete_pet', true, '/pets/{id}/x'),
      'Tools/d.yaml': tool('old', false, '/old'),
      'Tools/openapi.json': '{}',
    };
    const head = {
      'Tools/a.yaml': tool('pets_list', true),
      'Tools/b.yaml': tool('get_pet', false, '/pets/{id}'),
      'Tools/e.yaml': tool('new_tool', false, '/new'),
      'Tools/d.yaml': tool('old', false, '/old', 'stale: true\n'),
    };
    const changes = diffTools(base, head).map((c) => `${c.kind}:${c.key}:${c.level}`);
    expect(changes).toEqual([
      'tool-renamed:a:breaking',
      'tool-disabled:b:warning',
      'tool-removed:c:breaking',
      'tool-became-stale:d:info',
      'tool-added:e:info',
    ]);
  });
  it('finds nothing between equal folders and skips unparsable files', () => {
    const files = { 'Tools/a.yaml': tool('x', true), 'Tools/bad.yaml': 'a: [' };
    expect(diffTools(files, files)).toEqual([]);
    expect([...enabledEndpoints(files)]).toEqual([['GET /pets', 'x']]);
  });
  it('reads enabled tools whatever their YAML style, skipping only a top-level enabled: false', () => {
    const files = {
      'Tools/flow.yaml': '{name: f, enabled: true, endpoint: {method: GET, path: /f}}\n',
      'Tools/scalar.yaml':
        'name: s\ndescription: |\n  enabled: false\nenabled: true\nendpoint:\n  method: PUT\n  path: /s\n',
      'Tools/off.yaml': tool('off', false, '/off'),
    };
    expect([...enabledEndpoints(files)].sort()).toEqual([
      ['GET /f', 'f'],
      ['PUT /s', 's'],
    ]);
  });
  it('shows hand edits to inputSchema, locations and annotations; breaking when a caller loses a property', () => {
    const schema = (props: string, required = '[]') =>
      `inputSchema:\n  type: object\n  properties: {${props}}\n  required: ${required}\nlocations: {q: query}\n`;
    const base = {
      'Tools/a.yaml': tool('a', true, '/a', schema('q: {type: string}, n: {type: integer}')),
      'Tools/b.yaml': tool('b', true, '/b', schema('q: {type: string}')),
      'Tools/c.yaml': tool('c', false, '/c', schema('q: {type: string}')),
      'Tools/d.yaml': tool('d', true, '/d', schema('q: {type: string}')),
    };
    const head = {
      'Tools/a.yaml': tool('a', true, '/a', schema('q: {type: string}')),
      'Tools/b.yaml': tool('b', true, '/b', schema('q: {type: string, maxLength: 5}')),
      'Tools/c.yaml': tool('c', false, '/c', schema('q: {type: string}', '[q]')),
      'Tools/d.yaml': tool('d', true, '/d', schema('q: {type: string}', '[q]')).replace(
        '{q: query}',
        '{q: header}',
      ),
    };
    expect(diffTools(base, head).map((c) => `${c.key}:${c.level}:${c.detail}`)).toEqual([
      'a:breaking:hand edit to inputSchema; property removed: n; inputSchema.properties.n: {"type":"integer"} → (none)',
      'b:warning:hand edit to inputSchema; inputSchema.properties.q.maxLength: (none) → 5',
      'c:info:hand edit to inputSchema; newly required: q; inputSchema.required: [] → ["q"]',
      'd:breaking:hand edit to inputSchema, locations; newly required: q; inputSchema.required: [] → ["q"]; locations.q: "query" → "header"',
    ]);
  });
});
