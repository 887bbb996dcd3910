import { describe, expect, it } from 'vitest';
import type { ToolItem } from '../../folder/model.js';
import type { SvcTool } from '../../schemas/types.js';
import { derivedBases } from './derived-bases.js';
import { mergeTool } from './merge-tool.js';

function tool(description: string, generated = description): SvcTool {
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
    generated: { name: 'get_pet', description: generated, fingerprint: '0123456789abcdef' },
  };
}

describe('derivedBases (folders written before .svc/generated.json)', () => {
  it('matches by endpoint and takes the recorded name and description as generated', () => {
    // The file holds what an older generator wrote (cut short); today's generator writes it whole.
    const file: ToolItem = { key: 'getPet', file: 'Tools/getPet.yaml', tool: tool('Get a pet…') };
    const today = tool('Get a pet by its id, with its tags.');
    const bases = derivedBases(
      [file],
      [{ key: 'getPetById', tool: { ...today, endpoint: { method: 'GET', path: '/pets/{petId}' } } }],
    );
    expect(bases.get('getPet')?.description).toBe('Get a pet…');
    // So the whole description arrives instead of being mistaken for a hand edit.
    expect(mergeTool(bases.get('getPet'), file.tool, today).tool.description).toBe(
      'Get a pet by its id, with its tags.',
    );
    // A real hand edit (the file differs from its record) still wins.
    const edited = tool('Mine.', 'Get a pet…');
    expect(
      mergeTool(
        derivedBases([{ ...file, tool: edited }], [{ key: 'x', tool: today }]).get('getPet'),
        edited,
        today,
      ).tool.description,
    ).toBe('Mine.');
  });
});
