import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { patchYaml } from './patch-yaml.js';

interface Tool {
  title?: string;
  generated: { fingerprint: string };
  inputSchema: { properties: Record<string, Record<string, unknown>> };
}

const text = `# reviewed by Ana: keep the short description
name: pets_list # agents call this
description: Mine.
inputSchema:
  type: object
  properties:
    # most callers want 50
    limit: { type: integer, default: 50 }
    status:
      type: string
generated:
  name: pets_list
  fingerprint: "0000000000000000"
`;

describe('patchYaml', () => {
  it('changes only what changed and keeps comments and styles of the rest', () => {
    const value = parse(text) as Record<string, unknown>;
    const next = structuredClone(value) as unknown as Tool;
    next.generated.fingerprint = '1111111111111111';
    next.inputSchema.properties.status!.enum = ['open', 'closed'];
    next.title = 'Pets';
    const out = patchYaml(text, next as unknown as Record<string, unknown>)!;
    expect(parse(out)).toEqual(next);
    expect(out).toContain('# reviewed by Ana: keep the short description');
    expect(out).toContain('name: pets_list # agents call this');
    expect(out).toContain('# most callers want 50');
    expect(out).toContain('limit: { type: integer, default: 50 }');
  });

  it('deletes keys and gives up on a document it cannot read', () => {
    const next = parse(text) as Tool;
    delete next.inputSchema.properties.status;
    expect(parse(patchYaml(text, next as unknown as Record<string, unknown>)!)).toEqual(next);
    expect(patchYaml('a: [1,\n', { a: 1 })).toBeUndefined();
  });
});
