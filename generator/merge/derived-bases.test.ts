import { describe, expect, it } from 'vitest';
import type { ToolItem } from '../../folder/model.js';
import type { SvcTool } from '../../schemas/types.js';
import { derivedBases } from './derived-bases.js';
import { mergeTool } from './merge-tool.js';

function tool(description: string, generated = description, fingerprint = '0123456789abcdef'): SvcTool {
  return {
    name: 'get_pet',
    description,
    enabled: false,
    sortOrder: 0,
    origin: 'imported',
    endpoint: { method: 'GET', path: '/pets/{id}' },
    classification: 'get',
    inputSchema: { type: 'object' },
    locations: {},
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    generated: { name: 'get_pet', description: generated, fingerprint },
  };
}

describe('derivedBases (folders written before .svc/generated.json)', () => {
  it('matches each generation to the files by endpoint, one candidate per generation', () => {
    const file: ToolItem = { key: 'getPet', file: 'Tools/getPet.yaml', tool: tool('Get a pet…') };
    const today = tool('Get a pet by its id, with its tags.');
    const older = tool('Get a pet by its id.');
    const moved = { ...today, endpoint: { method: 'GET' as const, path: '/pets/{petId}' } };
    const bases = derivedBases([file], [[{ key: 'getPetById', tool: moved }], [{ key: 'x', tool: older }]]);
    expect(bases.get('getPet')?.map((t) => t.description)).toEqual([
      'Get a pet by its id, with its tags.',
      'Get a pet by its id.',
    ]);
    // So the whole description arrives instead of being mistaken for a hand edit.
    expect(mergeTool(undefined, file.tool, today, bases.get('getPet')).tool.description).toBe(
      'Get a pet by its id, with its tags.',
    );
    // A real hand edit (the file differs from its record) still wins.
    const edited = tool('Mine.', 'Get a pet…');
    expect(mergeTool(undefined, edited, today, bases.get('getPet')).tool.description).toBe('Mine.');
  });

  it('built from today’s endpoints, a candidate counts only for a file of the same endpoint definition', () => {
    const file: ToolItem = { key: 'getPet', file: 'Tools/getPet.yaml', tool: tool('Get a pet.') };
    const same = tool('Get a pet.');
    const changed = tool('Get a pet.', 'Get a pet.', 'fedcba9876543210');
    expect(derivedBases([file], [[{ key: 'getPet', tool: same }]], true).get('getPet')).toHaveLength(1);
    expect(derivedBases([file], [[{ key: 'getPet', tool: changed }]], true).has('getPet')).toBe(false);
    expect(derivedBases([file], [[{ key: 'getPet', tool: changed }]]).get('getPet')).toHaveLength(1);
  });
});
