import { describe, expect, it } from 'vitest';
import type { SvcTool } from '../../schemas/types.js';
import { mergeTool } from './merge-tool.js';
import { NO_RECORD_REASON } from './unrecorded-base.js';

/** A generated tool, as the generator would write it; `change` edits a copy. */
function generated(change: (t: SvcTool) => void = () => {}): SvcTool {
  const t: SvcTool = {
    name: 'pets_list',
    description: 'List pets.',
    enabled: false,
    sortOrder: 3,
    origin: 'imported',
    endpoint: { method: 'GET', path: '/pets', operationId: 'listPets' },
    classification: 'list',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    locations: {
      status: { in: 'query', name: 'status' },
      limit: { in: 'query', name: 'limit' },
      owner: { in: 'query', name: 'owner' },
    },
    inputSchema: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['available', 'pending', 'sold'], description: 'Status filter.' },
        limit: { type: 'integer', default: 20, description: 'Page size.' },
        owner: { type: 'string', description: 'Owner name.' },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { items: { type: 'array', description: 'The pets.' } },
    },
    generated: { name: 'pets_list', description: 'List pets.', fingerprint: '0123456789abcdef' },
  };
  change(t);
  return structuredClone(t);
}

type Props = Record<string, Record<string, unknown>>;
const props = (t: SvcTool) => t.inputSchema.properties as Props;

/** Every kind of hand edit a reviewer makes in a tool file. */
function edited(from: SvcTool): SvcTool {
  const t = structuredClone(from);
  t.enabled = true;
  t.sortOrder = 9;
  t.name = 'find_pets';
  t.title = 'Find pets';
  t.description = 'Find pets by status.';
  t.annotations = { ...t.annotations, title: 'Pets', openWorldHint: false };
  props(t).status!.description = 'Which pets.';
  props(t).status!.enum = ['available', 'pending'];
  props(t).limit!.default = 50;
  delete props(t).owner; // a removed optional parameter
  delete t.locations.owner;
  props(t).trace = { type: 'string', description: 'Added by hand.' };
  t.locations.trace = { in: 'header', name: 'X-Trace' };
  t.locations.limit = { in: 'query', name: 'limit', explode: false };
  // Keys reordered: limit before status.
  t.inputSchema.properties = { limit: props(t).limit, status: props(t).status, trace: props(t).trace };
  (t.outputSchema!.properties as Props).items!.description = 'Matching pets.';
  t.widget = 'pets';
  return t;
}

describe('mergeTool: an unchanged re-import', () => {
  it('keeps every hand edit, byte for byte in value and key order, and reports nothing', () => {
    const base = generated();
    const ours = edited(base);
    const r = mergeTool(base, ours, generated());
    expect(r.resets).toEqual([]);
    expect(r.kept).toEqual([]);
    expect(r.tool).toEqual(ours);
    expect(Object.keys(r.tool.inputSchema.properties as object)).toEqual(['limit', 'status', 'trace']);
  });
});

describe('mergeTool: the endpoint changed', () => {
  it('takes what the user did not edit, keeps what the API did not change', () => {
    const base = generated();
    const ours = edited(base);
    const theirs = generated((t) => {
      (t.outputSchema!.properties as Props).total = { type: 'integer' }; // added response property
      props(t).limit!.maximum = 100;
      props(t).owner!.description = 'The owner.'; // the deleted parameter changed upstream
      t.annotations.destructiveHint = false;
    });
    const r = mergeTool(base, ours, theirs);
    expect(r.resets).toEqual([]);
    expect(r.tool.description).toBe('Find pets by status.');
    expect(props(r.tool).limit).toEqual({
      type: 'integer',
      default: 50,
      description: 'Page size.',
      maximum: 100,
    });
    expect(props(r.tool).owner).toBeUndefined();
    expect(r.tool.locations.owner).toBeUndefined();
    expect(Object.keys((r.tool.outputSchema!.properties as Props) ?? {})).toEqual(['items', 'total']);
    expect((r.tool.outputSchema!.properties as Props).items!.description).toBe('Matching pets.');
  });

  it('never renames an enabled tool, and follows the generator for a disabled one', () => {
    const base = generated();
    const theirs = generated((t) => {
      t.name = 'pets_find';
    });
    const enabled = { ...base, enabled: true };
    expect(mergeTool(base, enabled, theirs).tool.name).toBe('pets_list');
    expect(mergeTool(base, base, theirs).tool.name).toBe('pets_find');
  });

  it('keeps a narrowed enum narrow when the API adds a value', () => {
    const base = generated();
    const ours = edited(base);
    const theirs = generated((t) => {
      props(t).status!.enum = ['available', 'pending', 'sold', 'adopted'];
    });
    const r = mergeTool(base, ours, theirs);
    expect(props(r.tool).status!.enum).toEqual(['available', 'pending']);
    expect(r.resets).toEqual([]);
    expect(r.kept.map((k) => k.field)).toEqual(['inputSchema.properties.status.enum']);
  });

  it('keeps an edited description the API also changed, and says so', () => {
    const base = generated();
    const ours = edited(base);
    const theirs = generated((t) => {
      t.description = 'Lists every pet.';
      props(t).status!.description = 'Filter.';
    });
    const r = mergeTool(base, ours, theirs);
    expect(r.tool.description).toBe('Find pets by status.');
    expect(props(r.tool).status!.description).toBe('Which pets.');
    expect(r.resets).toEqual([]);
    expect(r.kept.map((k) => [k.field, k.previous, k.current])).toEqual([
      ['description', 'List pets.', 'Lists every pet.'],
      ['inputSchema.properties.status.description', 'Status filter.', 'Filter.'],
    ]);
  });

  it('resets an edit the new endpoint makes wrong, naming field, both values and why', () => {
    const base = generated();
    const ours = edited(base);
    const theirs = generated((t) => {
      props(t).limit = { type: 'string', enum: ['10', '20'], description: 'Page size.' }; // type changed
      t.locations.limit = { in: 'header', name: 'X-Limit' }; // sent differently
      (t.inputSchema as { required?: string[] }).required = ['owner']; // the deleted parameter is now required
      props(t).status!.enum = ['available', 'sold']; // "pending" is gone
    });
    const r = mergeTool(base, ours, theirs);
    const byField = Object.fromEntries(r.resets.map((x) => [x.field, x]));
    expect(byField['locations.limit']).toMatchObject({
      previous: { in: 'query', name: 'limit', explode: false },
      current: { in: 'header', name: 'X-Limit' },
      reason: 'the API changed how this parameter is sent',
    });
    expect(byField['inputSchema.properties.limit.default']).toMatchObject({
      previous: 50,
      reason: 'the edited default is no longer a valid value of the parameter',
    });
    expect(byField['inputSchema.properties.owner']).toMatchObject({
      previous: undefined,
      current: { type: 'string', description: 'Owner name.' },
      reason: 'the API now requires this parameter',
    });
    expect(r.tool.locations.owner).toEqual({ in: 'query', name: 'owner' });
    expect(r.tool.inputSchema.required).toEqual(['owner']);
    // The narrowed enum loses what the API removed and keeps the user's narrowing.
    expect(props(r.tool).status!.enum).toEqual(['available']);
    expect(byField['inputSchema.properties.status.enum']).toMatchObject({
      previous: ['available', 'pending'],
      current: ['available'],
      reason: 'the API no longer accepts "pending"',
    });
    // The hand-added header parameter is the user's and stays.
    expect(r.tool.locations.trace).toEqual({ in: 'header', name: 'X-Trace' });
    expect(r.tool.enabled).toBe(true);
    expect(r.tool.widget).toBe('pets');
  });

  it('resets an edit of a parameter the API removed', () => {
    const base = generated();
    const ours = edited(base);
    const theirs = generated((t) => {
      delete props(t).status;
      delete t.locations.status;
    });
    const r = mergeTool(base, ours, theirs);
    expect(props(r.tool).status).toBeUndefined();
    expect(r.tool.locations.status).toBeUndefined();
    expect(r.resets).toEqual([
      expect.objectContaining({
        field: 'inputSchema.properties.status',
        current: undefined,
        reason: 'the API no longer has this parameter',
      }),
    ]);
  });

  it('without a stored base or any candidate, keeps what differs and says it had no record', () => {
    const ours = edited(generated());
    const theirs = generated((t) => {
      props(t).limit!.default = 25;
    });
    const r = mergeTool(undefined, ours, theirs);
    expect(r.tool.description).toBe('Find pets by status.');
    expect(r.tool.name).toBe('find_pets');
    expect(props(r.tool).limit!.default).toBe(50);
    expect(r.resets).toEqual([]);
    expect(r.kept).toContainEqual({
      field: 'inputSchema.properties.limit.default',
      previous: undefined,
      current: 25,
      reason: NO_RECORD_REASON,
    });
    // The recorded name and description are edits on record, not guesses.
    expect(r.kept.map((k) => k.field)).not.toContain('name');
    expect(r.kept.map((k) => k.field)).not.toContain('description');
  });

  it('without a stored base, an edit the API made wrong is still reset, by the candidates of before', () => {
    const before = generated();
    const ours = generated((t) => {
      props(t).limit!.default = 50;
    });
    const theirs = generated((t) => {
      props(t).limit = { type: 'string', default: '20', description: 'Page size.' };
    });
    const r = mergeTool(undefined, ours, theirs, [before]);
    expect(props(r.tool).limit).toEqual({ type: 'string', default: '20', description: 'Page size.' });
    expect(r.resets).toEqual([
      {
        field: 'inputSchema.properties.limit.default',
        previous: 50,
        current: '20',
        reason: 'the edited default is no longer a valid value of the parameter',
      },
    ]);
    expect(r.kept).toEqual([]);
  });
});

describe('edits inside arrays of schemas (oneOf, anyOf, allOf, prefixItems)', () => {
  /** A body that is one item or a list of them, as GitHub's and Stripe's bodies often are. */
  const withUnion = (itemDescription: string) =>
    generated((t) => {
      props(t).body = {
        oneOf: [
          { type: 'array', items: { type: 'string' }, description: 'Several labels.' },
          { type: 'string', description: itemDescription },
        ],
      };
      t.locations.body = { in: 'body', name: 'body', whole: true };
    });

  it('keeps a maxItems added in one alternative when upstream only reworded another', () => {
    const base = withUnion('One label.');
    const ours = structuredClone(base);
    (props(ours).body!.oneOf as Record<string, unknown>[])[0]!.maxItems = 10;
    const theirs = withUnion('A single label name.');
    const result = mergeTool(base, ours, theirs);
    expect(result.resets).toEqual([]);
    expect(result.kept).toEqual([]);
    expect(props(result.tool).body!.oneOf).toEqual([
      { type: 'array', items: { type: 'string' }, description: 'Several labels.', maxItems: 10 },
      { type: 'string', description: 'A single label name.' },
    ]);
  });

  it('still settles a conflict inside one alternative, naming the field inside it', () => {
    const base = withUnion('One label.');
    const ours = structuredClone(base);
    (props(ours).body!.oneOf as Record<string, unknown>[])[1]!.type = 'integer';
    const theirs = withUnion('One label.');
    (props(theirs).body!.oneOf as Record<string, unknown>[])[1]!.type = 'boolean';
    const result = mergeTool(base, ours, theirs);
    expect(result.resets.map((r) => r.field)).toEqual(['inputSchema.properties.body.oneOf.1.type']);
  });
});
