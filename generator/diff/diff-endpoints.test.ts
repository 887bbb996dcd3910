import { describe, expect, it } from 'vitest';
import type { Endpoint } from '../../schemas/types.js';
import { diffEndpoints } from './diff-endpoints.js';
import { RULES } from './rules.js';

function ep(over: Partial<Endpoint> & Pick<Endpoint, 'method' | 'path'>): Endpoint {
  return { parameters: [], tags: [], deprecated: false, security: [], ...over };
}

const pet = {
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { type: 'integer' }, name: { type: 'string' }, tag: { type: 'string' } },
};

describe('diffEndpoints', () => {
  it('reports nothing for identical lists', () => {
    const list = [ep({ method: 'GET', path: '/pets' })];
    expect(diffEndpoints(list, structuredClone(list))).toEqual([]);
  });

  it('compares only the pairs not known to be the same', () => {
    const before = [ep({ method: 'GET', path: '/a' }), ep({ method: 'GET', path: '/b' })];
    const after = before.map((e) => ({ ...e, deprecated: true }));
    const known = new Set([before[0], after[0]]);
    const d = diffEndpoints(before, after, {}, (b, a) => known.has(b) && known.has(a));
    expect(d.map((c) => c.key)).toEqual(['GET /b']);
    expect(diffEndpoints(before, after)).toHaveLength(2);
  });

  it('classifies added, removed and changed endpoints, sorted by path then method', () => {
    const before = [ep({ method: 'GET', path: '/pets' }), ep({ method: 'DELETE', path: '/pets/{id}' })];
    const after = [
      ep({ method: 'POST', path: '/pets' }),
      ep({ method: 'GET', path: '/pets', deprecated: true, tags: ['pets'] }),
    ];
    const d = diffEndpoints(before, after);
    expect(d.map((c) => [c.key, c.kind, c.breaking])).toEqual([
      ['GET /pets', 'changed', false],
      ['POST /pets', 'added', false],
      ['DELETE /pets/{id}', 'removed', true],
    ]);
    expect(d[0]!.changes.map((c) => c.id)).toEqual(['endpoint-deprecated']);
    expect(d[0]!.group).toBe('pets');
    expect(d[2]!.group).toBe('/pets');
  });

  it('treats a renamed path parameter as the same endpoint', () => {
    const p = (name: string) => ({ name, in: 'path' as const, required: true, schema: { type: 'string' } });
    const d = diffEndpoints(
      [ep({ method: 'GET', path: '/pets/{id}', parameters: [p('id')] })],
      [ep({ method: 'GET', path: '/pets/{petId}', parameters: [p('petId')] })],
    );
    expect(d).toHaveLength(1);
    expect(d[0]!.changes.map((c) => c.id)).toEqual(['endpoint-path-parameter-renamed']);
    expect(d[0]!.breaking).toBe(false);
  });

  it('classifies parameter changes', () => {
    const before = ep({
      method: 'GET',
      path: '/pets',
      parameters: [
        { name: 'limit', in: 'query', required: false, schema: { type: 'integer' } },
        { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['a', 'b'] } },
        { name: 'old', in: 'query', required: false, schema: { type: 'string' } },
        { name: 'x', in: 'header', required: true, schema: { type: 'string' } },
      ],
    });
    const after = ep({
      method: 'GET',
      path: '/pets',
      parameters: [
        { name: 'limit', in: 'query', required: true, schema: { type: 'string' } },
        { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['b', 'c'] } },
        { name: 'x', in: 'header', required: false, schema: { type: 'string' } },
        { name: 'page', in: 'query', required: false, schema: { type: 'integer' } },
        { name: 'org', in: 'query', required: true, schema: { type: 'integer' } },
      ],
    });
    const ids = diffEndpoints([before], [after])[0]!.changes.map((c) => c.id);
    expect(ids.sort()).toEqual(
      [
        'request-parameter-became-optional',
        'request-parameter-became-required',
        'request-parameter-type-changed',
        'request-parameter-removed',
        'request-parameter-enum-value-removed',
        'request-parameter-enum-value-added',
        'request-parameter-added-optional',
        'request-parameter-added-required',
      ].sort(),
    );
  });

  it('follows $defs references and reports body and response property changes', () => {
    const defsBefore = { Pet: pet };
    const defsAfter = {
      Pet: {
        type: 'object',
        required: ['id', 'name', 'owner'],
        properties: { id: { type: 'string' }, name: { type: 'string' }, owner: { type: 'string' } },
      },
    };
    const before = ep({
      method: 'POST',
      path: '/pets',
      requestBody: { required: false, contentType: 'application/json', schema: { $ref: '#/$defs/Pet' } },
      response: { status: '200', contentType: 'application/json', schema: { $ref: '#/$defs/Pet' } },
      defs: defsBefore,
    });
    const after = ep({
      method: 'POST',
      path: '/pets',
      requestBody: { required: true, contentType: 'application/json', schema: { $ref: '#/$defs/Pet' } },
      response: { status: '201', contentType: 'application/json', schema: { $ref: '#/$defs/Pet' } },
      defs: defsAfter,
      security: [['oauth']],
    });
    const change = diffEndpoints([before], [after])[0]!;
    const ids = change.changes.map((c) => `${c.id}@${c.location ?? ''}`);
    expect(ids).toEqual([
      'request-body-became-required@body',
      'request-body-type-changed@body/id',
      'request-property-added-required@body/owner',
      'request-property-removed@body/tag',
      'response-success-status-changed@response',
      'response-type-changed@response/id',
      'response-property-added@response/owner',
      'response-property-removed@response/tag',
      'security-added@security',
    ]);
    expect(change.breaking).toBe(true);
    for (const c of change.changes) expect(c.level).toBe(RULES[c.id as keyof typeof RULES].level);
  });

  it('terminates on recursive schemas', () => {
    const node = { type: 'object', properties: { child: { $ref: '#/$defs/Node' }, v: { type: 'string' } } };
    const node2 = { type: 'object', properties: { child: { $ref: '#/$defs/Node' }, v: { type: 'integer' } } };
    const before = ep({
      method: 'GET',
      path: '/t',
      response: { status: '200', schema: { $ref: '#/$defs/Node' } },
      defs: { Node: node },
    });
    const after = ep({
      method: 'GET',
      path: '/t',
      response: { status: '200', schema: { $ref: '#/$defs/Node' } },
      defs: { Node: node2 },
    });
    const changes = diffEndpoints([before], [after])[0]!.changes;
    expect(changes.map((c) => c.location)).toEqual(['response/v']);
  });

  it('gives each change a fingerprint that is stable across runs and distinct across changes', () => {
    const a = [ep({ method: 'GET', path: '/a' })];
    const b = [ep({ method: 'GET', path: '/b' })];
    const one = diffEndpoints(a, b);
    const two = diffEndpoints(a, b);
    expect(one).toEqual(two);
    const prints = one.flatMap((c) => c.changes.map((x) => x.fingerprint));
    expect(new Set(prints).size).toBe(prints.length);
    expect(prints[0]).toMatch(/^[0-9a-f]{12}$/);
  });

  it('classifies security alternatives', () => {
    const before = ep({ method: 'GET', path: '/s', security: [['apiKey'], ['oauth']] });
    const after = ep({ method: 'GET', path: '/s', security: [['oauth'], ['bearer']] });
    const ids = diffEndpoints([before], [after])[0]!.changes.map((c) => c.id);
    expect(ids).toEqual(['security-alternative-removed', 'security-alternative-added']);
    const open = diffEndpoints([after], [ep({ method: 'GET', path: '/s' })])[0]!.changes.map((c) => c.id);
    expect(open).toEqual(['security-removed']);
  });
});

describe('diffEndpoints: renamed paths', () => {
  it('pairs a removed and an added endpoint with the same method and operationId', () => {
    const d = diffEndpoints(
      [
        ep({ method: 'GET', path: '/pets', operationId: 'listPets' }),
        ep({ method: 'GET', path: '/a', operationId: 'x' }),
      ],
      [
        ep({ method: 'GET', path: '/animals', operationId: 'listPets' }),
        ep({ method: 'POST', path: '/b', operationId: 'x' }),
      ],
    );
    expect(d.map((c) => `${c.kind} ${c.key}`)).toEqual([
      'removed GET /a',
      'changed GET /animals',
      'added POST /b',
    ]);
    expect(d[1]!.changes.map((c) => c.id)).toEqual(['endpoint-path-changed']);
  });
});

describe('diffEndpoints: stored and fresh endpoints', () => {
  it('reads keyword values regardless of key order (stored endpoints have sorted keys)', () => {
    const response = (schema: Record<string, unknown>) => ({
      status: '200',
      contentType: 'application/json',
      schema,
    });
    const before = ep({
      method: 'GET',
      path: '/i',
      response: response({ type: 'object', additionalProperties: { format: 'int32', type: 'integer' } }),
    });
    const after = ep({
      method: 'GET',
      path: '/i',
      response: response({ type: 'object', additionalProperties: { type: 'integer', format: 'int32' } }),
    });
    expect(diffEndpoints([before], [after])).toEqual([]);
  });
});

describe('diffEndpoints: endpoints stored by an older svc (no contract)', () => {
  it('compares only what both sides know: no error status, header or scope reads as new', () => {
    const base = ep({
      method: 'GET',
      path: '/o',
      security: [['oauth']],
      response: { status: '200', contentType: 'application/json', schema: { type: 'object' } },
    });
    const fresh = ep({
      ...base,
      contract: {
        securityScopes: [{ oauth: ['read'] }],
        responses: {
          '200': {
            media: { 'application/json': { type: 'object' } },
            headers: { etag: { required: true, schema: {} } },
          },
          '404': { media: { 'application/json': { type: 'object' } } },
        },
        callbacks: { done: { 'POST {$request.body#/url}': {} } },
      },
    });
    expect(diffEndpoints([base], [fresh])).toEqual([]);
    // Once both sides carry it, the same contract change is seen.
    const later = ep({ ...fresh, contract: { ...fresh.contract, responses: { '200': {} } } });
    const ids = diffEndpoints([fresh], [later])[0]!.changes.map((c) => c.id);
    expect(ids).toEqual([
      'response-error-status-removed',
      'response-body-removed',
      'response-header-removed',
    ]);
  });
});

describe('diffEndpoints: defs of the endpoint and of its contract', () => {
  it("reads a reference in the contract's defs, then in the endpoint's, the contract's first", () => {
    const side = (code: object, shared: object) =>
      ep({
        method: 'POST',
        path: '/pets',
        requestBody: { contentType: 'application/json', required: true, schema: { $ref: '#/$defs/Pet' } },
        defs: { Pet: pet, Shared: { type: 'object', properties: { old: { type: 'string' } } } },
        contract: {
          responses: { '404': { media: { 'application/json': { $ref: '#/$defs/Err' } } } },
          defs: {
            Err: {
              type: 'object',
              required: ['code'],
              properties: { code, shared: { $ref: '#/$defs/Shared' } },
            },
            Shared: shared,
          },
        },
      });
    const before = side({ type: 'string' }, { type: 'object', required: ['a'], properties: { a: {} } });
    const after = side({ type: 'integer' }, { type: 'object', required: ['a'], properties: { a: {} } });
    const texts = diffEndpoints([before], [after])[0]!.changes.map((c) => c.text);
    expect(texts.join('\n')).toContain('string → integer');
    // The same contract defs, but the endpoint's Shared (under the contract's) changed: nothing.
    const shadowed = side({ type: 'string' }, { type: 'object', required: ['a'], properties: { a: {} } });
    expect(
      diffEndpoints([before], [{ ...shadowed, defs: { ...shadowed.defs!, Shared: { type: 'integer' } } }]),
    ).toEqual([]);
    // The contract's Shared changed: seen.
    const changed = side({ type: 'string' }, { type: 'object', properties: { a: {} } });
    expect(
      diffEndpoints([before], [changed])[0]!
        .changes.map((c) => c.text)
        .join('\n'),
    ).toContain('shared.a');
  });
});
