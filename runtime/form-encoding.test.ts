/**
 * Form and multipart bodies follow the Encoding Object of each property: the style examples of
 * the OpenAPI 3.1 specification (§4.8.12.4, `color` as a string, an array and an object) sent as
 * an application/x-www-form-urlencoded body, and the same styles as multipart parts.
 */
import { describe, expect, it } from 'vitest';
import type { SvcConfig, SvcTool } from '../schemas/types.js';
import type { FieldEncoding } from './form-encoding.js';
import { buildUpstreamRequest } from './upstream-request.js';

const config: SvcConfig = {
  schemaVersion: 1,
  server: { id: 's', name: 'Default', published: false },
  app: { name: 'S', provider: 'manual' },
  source: { kind: 'manual' },
  auth: { mode: 'none', hasAuthSecret: false },
  apiBaseUrl: 'https://api.example.test/v1',
  requiredEnv: [],
};

function formTool(
  contentType: 'application/x-www-form-urlencoded' | 'multipart/form-data',
  encoding: Record<string, FieldEncoding> | undefined,
): SvcTool {
  return {
    name: 't',
    description: 'd',
    enabled: true,
    sortOrder: 0,
    origin: 'manual',
    endpoint: { method: 'POST', path: '/paint' },
    classification: 'create',
    inputSchema: { type: 'object' },
    locations: { color: { in: 'body', name: 'color' }, other: { in: 'body', name: 'other' } },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    body: { contentType, required: true, ...(encoding ? { encoding } : {}) },
  };
}

function urlencoded(encoding: FieldEncoding | undefined, color: unknown): string {
  const r = buildUpstreamRequest(
    formTool('application/x-www-form-urlencoded', encoding ? { color: encoding } : undefined),
    { color },
    { config },
  );
  if (!r.ok) throw new Error(r.problems.join('; '));
  return r.request.body as string;
}

/** The pairs of a form body, decoded: how a server reads it. */
function pairs(body: string): [string, string][] {
  if (body === '') return [];
  return body.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return eq < 0 ? [decode(pair), ''] : [decode(pair.slice(0, eq)), decode(pair.slice(eq + 1))];
  });
}

const string = 'blue';
const array = ['blue', 'black', 'brown'];
const object = { R: 100, G: 200, B: 150 };

// OpenAPI 3.1.0 §4.8.12.4 "Style Examples", the rows that apply to form fields (n/a cells left out).
const SPEC_TABLE: [FieldEncoding, unknown, string][] = [
  [{ style: 'form', explode: false }, '', 'color='],
  [{ style: 'form', explode: false }, string, 'color=blue'],
  [{ style: 'form', explode: false }, array, 'color=blue,black,brown'],
  [{ style: 'form', explode: false }, object, 'color=R,100,G,200,B,150'],
  [{ style: 'form', explode: true }, '', 'color='],
  [{ style: 'form', explode: true }, string, 'color=blue'],
  [{ style: 'form', explode: true }, array, 'color=blue&color=black&color=brown'],
  [{ style: 'form', explode: true }, object, 'R=100&G=200&B=150'],
  [{ style: 'spaceDelimited', explode: false }, array, 'color=blue%20black%20brown'],
  [{ style: 'spaceDelimited', explode: false }, object, 'color=R%20100%20G%20200%20B%20150'],
  [{ style: 'pipeDelimited', explode: false }, array, 'color=blue|black|brown'],
  [{ style: 'pipeDelimited', explode: false }, object, 'color=R|100|G|200|B|150'],
  [{ style: 'deepObject', explode: true }, object, 'color[R]=100&color[G]=200&color[B]=150'],
];

describe('application/x-www-form-urlencoded, per the specification’s style examples', () => {
  it.each(SPEC_TABLE)('%j with %j → %s', (encoding, value, expected) => {
    expect(pairs(urlencoded(encoding, value))).toEqual(pairs(expected));
  });

  it('defaults: style form, explode true when only one of them is given', () => {
    expect(pairs(urlencoded({ explode: true }, object))).toEqual(pairs('R=100&G=200&B=150'));
    expect(pairs(urlencoded({ style: 'form' }, array))).toEqual(pairs('color=blue&color=black&color=brown'));
    expect(pairs(urlencoded({ style: 'pipeDelimited' }, array))).toEqual(pairs('color=blue|black|brown'));
  });

  it('deepObject nests objects and sends arrays as name[] (Stripe, Rails)', () => {
    const body = urlencoded(
      { style: 'deepObject', explode: true },
      { plan: 'pro', address: { city: 'Berlin' }, tags: ['a', 'b'], items: [{ price: 'p1' }] },
    );
    expect(pairs(body)).toEqual([
      ['color[plan]', 'pro'],
      ['color[address][city]', 'Berlin'],
      ['color[tags][]', 'a'],
      ['color[tags][]', 'b'],
      ['color[items][0][price]', 'p1'],
    ]);
    expect(pairs(urlencoded({ style: 'deepObject', explode: true }, ['x', 'y']))).toEqual([
      ['color[]', 'x'],
      ['color[]', 'y'],
    ]);
  });

  it('a JSON contentType sends the value as JSON; no encoding keeps the plain rules', () => {
    expect(pairs(urlencoded({ contentType: 'application/json' }, object))).toEqual([
      ['color', '{"R":100,"G":200,"B":150}'],
    ]);
    expect(pairs(urlencoded(undefined, array))).toEqual(pairs('color=blue&color=black&color=brown'));
    expect(pairs(urlencoded(undefined, 'blue'))).toEqual([['color', 'blue']]);
  });

  it('keeps every reserved character percent-encoded', () => {
    expect(urlencoded({ style: 'deepObject', explode: true }, { 'a&b': 'c=d' })).toBe(
      'color%5Ba%26b%5D=c%3Dd',
    );
  });
});

describe('multipart/form-data', () => {
  async function parts(encoding: FieldEncoding, color: unknown) {
    const r = buildUpstreamRequest(
      formTool('multipart/form-data', { color: encoding }),
      { color, other: 'x' },
      { config },
    );
    if (!r.ok) throw new Error(r.problems.join('; '));
    // Through a real multipart round trip, as the upstream reads it.
    const response = new Response(r.request.body as FormData);
    const form = await response.formData();
    const out: [string, string, string][] = [];
    for (const [name, value] of form.entries()) {
      out.push(typeof value === 'string' ? [name, value, ''] : [name, await value.text(), value.type]);
    }
    return out;
  }

  it('deepObject and form styles become separate parts', async () => {
    expect(await parts({ style: 'deepObject', explode: true }, { create: true, expires_at: 10 })).toEqual([
      ['color[create]', 'true', ''],
      ['color[expires_at]', '10', ''],
      ['other', 'x', ''],
    ]);
    expect(await parts({ style: 'form', explode: false }, array)).toEqual([
      ['color', 'blue,black,brown', ''],
      ['other', 'x', ''],
    ]);
  });

  it('a contentType becomes the part’s Content-Type', async () => {
    expect(await parts({ contentType: 'application/json' }, object)).toEqual([
      ['color', '{"R":100,"G":200,"B":150}', 'application/json'],
      ['other', 'x', ''],
    ]);
  });
});
