import { describe, expect, it } from 'vitest';
import type { ContentItem, ContentItems, FolderModel, ToolItem } from '../../folder/model.js';
import type { SkillFrontmatter, SvcConfig, SvcTool } from '../../schemas/types.js';
import { mergeImport } from './merge-import.js';

function tool(
  name: string,
  method: SvcTool['endpoint']['method'],
  path: string,
  fp = 'a'.repeat(16),
): SvcTool {
  return {
    name,
    description: `${name} description`,
    enabled: false,
    sortOrder: 0,
    origin: 'imported',
    endpoint: { method, path },
    classification: 'get',
    inputSchema: { type: 'object' },
    locations: {},
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    generated: { name, description: `${name} description`, fingerprint: fp },
  };
}
const item = (key: string, t: SvcTool): ToolItem => ({ key, file: `Tools/${key}.yaml`, tool: t });
const config = {} as SvcConfig;
const noContent: ContentItems = { skills: [], prompts: [], resources: [], docs: [], widgets: [] };
function folder(tools: ToolItem[], content: Partial<ContentItems> = {}): FolderModel {
  return { config, tools, ...noContent, ...content };
}

describe('mergeImport: tools', () => {
  it('keeps enabled, sortOrder and customizations, even when the endpoint changed', () => {
    const kept = {
      ...tool('listPets', 'GET', '/pets'),
      enabled: true,
      sortOrder: 5,
      name: 'pets_list',
      description: 'mine',
    };
    const reset = { ...tool('getPet', 'GET', '/pets/{id}'), sortOrder: 2, description: 'my words' };
    const result = mergeImport({
      previous: folder([item('listPets', kept), item('getPet', reset)]),
      tools: [
        { key: 'listPets', tool: tool('listPets', 'GET', '/pets') },
        { key: 'getPetById', tool: tool('getPetById', 'GET', '/pets/{petId}', 'b'.repeat(16)) },
      ],
    });
    const byKey = Object.fromEntries(result.tools.map((t) => [t.key, t.tool]));
    expect(byKey.listPets).toMatchObject({
      name: 'pets_list',
      description: 'mine',
      enabled: true,
      sortOrder: 5,
    });
    // Matched by path shape: the file keeps its key; the endpoint changed, and so did its
    // generated description, but a description is the user's to choose: it is kept, and said so.
    expect(byKey.getPet).toMatchObject({
      name: 'getPetById',
      description: 'my words',
      sortOrder: 2,
    });
    expect(result.notes).toContainEqual(
      expect.objectContaining({
        kind: 'customization-kept',
        kept: expect.objectContaining({ key: 'getPet', fields: ['description'] }),
      }),
    );
    expect(result.notes.some((n) => n.kind === 'customization-reset')).toBe(false);
  });

  it('adds new endpoints disabled at the end, removes untouched tools, keeps touched ones stale', () => {
    const result = mergeImport({
      previous: folder([
        item('a', { ...tool('a', 'GET', '/a'), sortOrder: 0 }),
        item('b', { ...tool('b', 'GET', '/b'), sortOrder: 7, enabled: true }),
        item('c', { ...tool('c', 'GET', '/c'), sortOrder: 3, name: 'renamed' }),
        item('m', { ...tool('m', 'GET', '/m'), origin: 'manual', sortOrder: 1 }),
      ]),
      tools: [{ key: 'n', tool: { ...tool('n', 'POST', '/n'), enabled: true, sortOrder: 0 } }],
    });
    expect(result.tools.map((t) => [t.key, t.tool.sortOrder, t.tool.enabled, t.tool.stale ?? false])).toEqual(
      [
        ['m', 1, false, false],
        ['c', 3, false, true],
        ['b', 7, true, true],
        ['n', 8, false, false],
      ],
    );
    const kinds = result.notes.map((n) => n.kind).sort();
    expect(kinds).toEqual(['tool-added', 'tool-removed', 'tool-stale', 'tool-stale']);
  });

  it('keeps names unique: a new tool yields to a renamed one, deterministically', () => {
    const prev = folder([item('a', { ...tool('a', 'GET', '/a'), name: 'createPet' })]);
    const input = {
      previous: prev,
      tools: [
        { key: 'a', tool: tool('a', 'GET', '/a') },
        { key: 'createPet', tool: tool('createPet', 'POST', '/pets') },
      ],
    };
    const result = mergeImport(input);
    const names = result.tools.map((t) => t.tool.name);
    expect(names).toEqual(['createPet', 'createPet_2']);
    expect(mergeImport(input)).toEqual(result);
  });

  it('never touches manual tools, even when a generated name collides', () => {
    const manual = { ...tool('x', 'GET', '/x'), origin: 'manual' as const, name: 'listPets' };
    const result = mergeImport({
      previous: folder([item('x', manual)]),
      tools: [{ key: 'listPets', tool: tool('listPets', 'GET', '/pets') }],
    });
    expect(result.tools.find((t) => t.key === 'x')!.tool).toBe(manual);
    expect(result.tools.find((t) => t.key === 'listPets')!.tool.name).toBe('listPets_2');
  });
});

function skill(
  name: string,
  body: string,
  fm: Partial<SkillFrontmatter> = {},
): ContentItem<SkillFrontmatter> {
  return { name, file: `Skills/${name}.md`, frontmatter: { description: 'd', ...fm }, body };
}

describe('mergeImport: content', () => {
  const previous = folder([], {
    skills: [
      skill('pristine', 'old', { enabled: true, sortOrder: 4 }),
      skill('edited', 'my edit'),
      skill('handmade', 'mine'),
      skill('gone', 'x'),
    ],
  });
  const lastWritten = { 'Skills/pristine.md': 'h1', 'Skills/edited.md': 'h2', 'Skills/gone.md': 'h3' };
  const currentHashes = {
    'Skills/pristine.md': 'h1',
    'Skills/edited.md': 'CHANGED',
    'Skills/handmade.md': 'h4',
    'Skills/gone.md': 'h3',
  };

  it('updates pristine items (keeping enabled and sortOrder), skips hand-made and hand-edited ones', () => {
    const content = {
      ...noContent,
      skills: [
        skill('pristine', 'new', { enabled: false, sortOrder: 9 }),
        skill('edited', 'repo'),
        skill('handmade', 'repo'),
        skill('fresh', 'new', { enabled: true }),
      ],
    };
    const result = mergeImport({ previous, lastWritten, currentHashes, tools: [], content });
    const byName = Object.fromEntries(result.content.skills.map((s) => [s.name, s]));
    expect(byName.pristine).toMatchObject({ body: 'new', frontmatter: { enabled: true, sortOrder: 4 } });
    expect(byName.edited!.body).toBe('my edit');
    expect(byName.handmade!.body).toBe('mine');
    expect(byName.fresh!.frontmatter.enabled).toBe(false);
    expect(byName.gone).toBeUndefined();
    expect(result.keptFiles).toEqual(['Skills/edited.md', 'Skills/handmade.md']);
    const actions = result.notes.flatMap((n) =>
      n.kind === 'content' ? [`${n.change.name}:${n.change.action}`] : [],
    );
    expect(actions.sort()).toEqual([
      'edited:skipped',
      'fresh:added',
      'gone:removed',
      'handmade:skipped',
      'pristine:updated',
    ]);
  });

  it('keeps every folder item when this import reads no content', () => {
    const result = mergeImport({ previous, lastWritten, currentHashes, tools: [] });
    expect(result.content.skills.map((s) => s.name)).toEqual(['edited', 'gone', 'handmade', 'pristine']);
    expect(result.notes).toEqual([]);
  });
});

describe('mergeImport: renamed paths', () => {
  it('keeps the tool of an operation whose path was renamed (same method and operationId)', () => {
    const old = { ...tool('listPets', 'GET', '/pets'), enabled: true, sortOrder: 3 };
    old.endpoint.operationId = 'listPets';
    const next = tool('listPets', 'GET', '/animals', 'c'.repeat(16));
    next.endpoint.operationId = 'listPets';
    const result = mergeImport({
      previous: folder([item('listPets', old)]),
      tools: [{ key: 'listPets', tool: next }],
    });
    expect(result.tools).toHaveLength(1);
    expect(result.tools[0]).toMatchObject({
      key: 'listPets',
      tool: { enabled: true, sortOrder: 3, endpoint: { path: '/animals' } },
    });
    expect(result.notes).toEqual([]);
  });
});
