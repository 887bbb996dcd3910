/**
 * Every rule of the registry against its fixtures (fixtures/diff-rules/): each fixture is a
 * minimal base and revision document, run through parse → endpoints → diff, and must report
 * exactly the rule ids it expects, with its verdict. Every rule needs a breaking and a
 * non-breaking case, and a case that reports it and one (a near miss) that must not.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { toEndpoints, toWebhooks } from '../endpoints/index.js';
import { parseDocument } from '../parse/index.js';
import { type DiffOptions, diffEndpoints } from './diff-endpoints.js';
import { diffWebhooks } from './webhook-diff.js';
import { KEYWORD_SCOPES, RULES, STATIC_RULE_IDS } from './rules.js';
import { CONSTRAINT_KEYWORDS } from './schema-diff.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'diff-rules');
const NOW = new Date('2026-01-01T00:00:00Z');

type Doc = Record<string, unknown>;

interface Fixture {
  name: string;
  rules: string[];
  expect: string[];
  breaking: boolean;
  base: Doc;
  revision: Doc;
  options?: Omit<DiffOptions, 'now'>;
  openapi?: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

function withResponses(pathItem: unknown): unknown {
  if (typeof pathItem !== 'object' || pathItem === null) return pathItem;
  const out: Doc = { ...(pathItem as Doc) };
  for (const m of METHODS) {
    const op = out[m] as Doc | undefined;
    if (op && op.responses === undefined) out[m] = { ...op, responses: { '200': { description: 'ok' } } };
  }
  return out;
}

/** A shorthand base or revision to a whole document (see the header of endpoints.yaml). */
function document(short: Doc, openapi = '3.1.0'): Doc {
  if ('openapi' in short || 'swagger' in short) return short;
  const { components, security, paths, webhooks, ...pathItem } = short;
  const doc: Doc = { openapi, info: { title: 'fixture', version: '1' } };
  const list = (paths as Doc | undefined) ?? { '/x': pathItem };
  doc.paths = Object.fromEntries(Object.entries(list).map(([p, item]) => [p, withResponses(item)]));
  if (components) doc.components = components;
  if (security) doc.security = security;
  if (webhooks) doc.webhooks = webhooks;
  return doc;
}

async function endpointsOf(doc: Doc) {
  const text = JSON.stringify(doc);
  const parsed = await parseDocument({ text, origin: '/fixture.json', bytes: text.length });
  return { endpoints: toEndpoints(parsed), webhooks: toWebhooks(parsed) };
}

async function run(f: Fixture) {
  const before = await endpointsOf(document(f.base, f.openapi));
  const after = await endpointsOf(document(f.revision, f.openapi));
  const options = { ...f.options, now: NOW };
  return [
    ...diffEndpoints(before.endpoints, after.endpoints, options),
    ...diffWebhooks(before.webhooks, after.webhooks, options),
  ].flatMap((e) => e.changes);
}

/** Six fixtures per schema keyword: three places, both directions. */
function keywordFixtures(): Fixture[] {
  const table = parseYaml(readFileSync(join(dir, 'keywords.yaml'), 'utf8')) as Record<
    string,
    { loose: Doc; tight: Doc }
  >;
  const out: Fixture[] = [];
  for (const [keyword, { loose, tight }] of Object.entries(table)) {
    for (const scope of KEYWORD_SCOPES) {
      const wrap = (schema: Doc): Doc => {
        if (scope === 'request-parameter')
          return { post: { parameters: [{ name: 'p', in: 'query', schema }] } };
        const object = { type: 'object', properties: { p: schema } };
        if (scope === 'request-property')
          return { post: { requestBody: { content: { 'application/json': { schema: object } } } } };
        return {
          post: {
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: object } } } },
          },
        };
      };
      const rules = [`${scope}-${keyword}-tightened`, `${scope}-${keyword}-loosened`];
      const request = scope !== 'response-property';
      out.push({
        name: `${keyword} tightened in a ${scope}`,
        rules,
        expect: [rules[0]!],
        breaking: request,
        base: wrap(loose),
        revision: wrap(tight),
      });
      out.push({
        name: `${keyword} loosened in a ${scope}`,
        rules,
        expect: [rules[1]!],
        breaking: !request,
        base: wrap(tight),
        revision: wrap(loose),
      });
    }
  }
  return out;
}

function fileFixtures(): Fixture[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.yaml') && n !== 'keywords.yaml')
    .sort()
    .flatMap((n) => parseYaml(readFileSync(join(dir, n), 'utf8')) as Fixture[]);
}

const FIXTURES = [...fileFixtures(), ...keywordFixtures()];

describe('diff rules: fixtures', () => {
  it.each(FIXTURES.map((f) => [f.name, f] as const))('%s', async (_name, f) => {
    for (const id of [...f.rules, ...f.expect])
      expect(Object.keys(RULES), `unknown rule ${id}`).toContain(id);
    const changes = await run(f);
    const ids = [...new Set(changes.map((c) => c.id))].sort();
    expect(ids, JSON.stringify(changes.map((c) => `${c.id}: ${c.text}`))).toEqual(
      [...new Set(f.expect)].sort(),
    );
    expect(changes.some((c) => c.level === 'breaking')).toBe(f.breaking);
  });
});

describe('diff rules: registry', () => {
  it('has a breaking and a non-breaking fixture for every rule', () => {
    const missing: string[] = [];
    for (const id of Object.keys(RULES)) {
      const about = FIXTURES.filter((f) => f.rules.includes(id));
      if (about.length < 2 || !about.some((f) => f.breaking) || !about.some((f) => !f.breaking))
        missing.push(id);
    }
    expect(missing).toEqual([]);
  });

  it('reports each rule somewhere (no rule is only ever absent)', () => {
    const fired = new Set(FIXTURES.flatMap((f) => f.expect));
    expect(Object.keys(RULES).filter((id) => !fired.has(id))).toEqual([]);
  });

  it('has, for every rule, a case that must not report it (no rule is only ever present)', () => {
    const quiet = new Set(FIXTURES.flatMap((f) => f.rules.filter((id) => !f.expect.includes(id))));
    expect(Object.keys(RULES).filter((id) => !quiet.has(id))).toEqual([]);
  });

  it('keeps the ids the report and its goldens use', () => {
    for (const id of [
      'endpoint-removed',
      'request-body-type-changed',
      'response-property-removed',
      'security-added',
    ])
      expect(STATIC_RULE_IDS).toContain(id);
    expect(Object.keys(RULES).length).toBe(
      STATIC_RULE_IDS.length + KEYWORD_SCOPES.length * Object.keys(CONSTRAINT_KEYWORDS).length * 2,
    );
    for (const id of Object.keys(RULES)) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });
});
