import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { describeAjvErrors, type SchemaName, validatorFor } from '../validate.js';
// @ts-expect-error: a plain .mjs script without types
import { createContractAjv, createMetaAjv, contractSchemas, META_SCHEMA } from './generate-validators.mjs';
import type { ValidateFunction } from 'ajv';
import { metaSchemaValidator as generatedMeta } from './meta-schema-validator.js';

const root = join(import.meta.dirname, '..', '..');
const metaSchemaValidator = generatedMeta as unknown as ValidateFunction;
const NAMES = Object.keys(contractSchemas() as object) as SchemaName[];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name));
}

function frontmatter(text: string): unknown {
  const m = /^---\n([\s\S]*?)\n---/.exec(text);
  return m ? parse(m[1] ?? '') : undefined;
}

/** Every contract value the fixture folders hold: config, tools (and their endpoints), content, history. */
function fixtureValues(): [string, unknown][] {
  const out: [string, unknown][] = [];
  const dirs = ['fixtures/golden', 'fixtures/action/example', 'fixtures/reimport/older-svc'];
  for (const file of dirs.flatMap((d) => filesUnder(join(root, d)))) {
    const rel = relative(root, file);
    const text = readFileSync(file, 'utf8');
    if (/\.(ya?ml)$/.test(rel) && !rel.endsWith('docker-compose.yml')) {
      const value = parse(text) as { endpoint?: unknown };
      out.push([rel, value]);
      if (value && typeof value === 'object' && value.endpoint) out.push([`${rel}#endpoint`, value.endpoint]);
    } else if (/\.mdx?$/.test(rel) && !rel.endsWith('README.md')) out.push([rel, frontmatter(text)]);
    else if (/(Widgets|\.svc\/(history|endpoints))\/[^/]+\.json$/.test(rel))
      out.push([rel, JSON.parse(text)]);
  }
  return out;
}

/** Broken copies: an unknown key (with a close known one), a wrong type, a key only the prototype has. */
function mutations(value: unknown): unknown[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [value];
  const entries = Object.entries(value);
  const [firstKey, firstValue] = entries[0] ?? ['x', 1];
  const withoutFirst = Object.fromEntries(entries.slice(1));
  return [
    { ...value, [`${firstKey}s`]: firstValue },
    { ...value, [firstKey]: typeof firstValue === 'string' ? 42 : 'x' },
    Object.assign(Object.create({ [firstKey]: firstValue }), withoutFirst),
    { ...value, enabled: 'yes', mode: 'automatic' },
  ];
}

describe('precompiled contract validators', () => {
  it('match what npm run schemas:compile would write now (not stale)', { timeout: 60_000 }, () => {
    const script = join(import.meta.dirname, 'generate-validators.mjs');
    expect(() => execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' })).not.toThrow();
  });

  it('answer every fixture value, and broken copies of it, exactly as a fresh compile does', () => {
    const ajv = createContractAjv();
    const values = fixtureValues();
    expect(values.length).toBeGreaterThan(40);
    const cases = [
      ...values.flatMap(([label, v]) => mutations(v).map((m, i) => [`${label}~${i}`, m] as const)),
      ...values,
      ['null', null],
      ['array', []],
      ['string', 'config'],
    ] as const;
    let valid = 0;
    let invalid = 0;
    for (const name of NAMES) {
      const fresh = ajv.getSchema((contractSchemas() as Record<string, { $id: string }>)[name]!.$id);
      const precompiled = validatorFor(name);
      for (const [label, value] of cases) {
        const expected = fresh(value);
        const got = precompiled(value);
        expect([name, label, got]).toEqual([name, label, expected]);
        expect(precompiled.errors ?? null).toEqual(fresh.errors ?? null);
        if (!got)
          expect(describeAjvErrors(precompiled.errors ?? [])).toEqual(describeAjvErrors(fresh.errors));
        if (got) valid++;
        else invalid++;
      }
    }
    // Both sides are exercised: fixture files pass their own schema, and fail the others.
    expect(valid).toBeGreaterThan(40);
    expect(invalid).toBeGreaterThan(1000);
  });

  it('check tool schemas against the 2020-12 meta-schema exactly as a fresh compile does', () => {
    const fresh = createMetaAjv().getSchema(META_SCHEMA);
    const schemas: unknown[] = [
      { type: 'obj' },
      { type: 'object', properties: { a: { type: 'strin' }, b: { minimum: 'x' } } },
      { required: 'a', items: [1], enum: 5, anyOf: [] },
      { properties: { a: { $ref: 5 } }, $defs: { x: { multipleOf: 0 } } },
      { unevaluatedProperties: 3, dependentRequired: { a: [1] } },
    ];
    for (const [label, value] of fixtureValues()) {
      const tool = value as { inputSchema?: unknown; outputSchema?: unknown } | undefined;
      if (label.endsWith('.yaml') && tool?.inputSchema)
        schemas.push(tool.inputSchema, tool.outputSchema ?? {});
    }
    expect(schemas.length).toBeGreaterThan(30);
    let invalid = 0;
    for (const schema of schemas) {
      const expected = fresh(schema);
      expect(metaSchemaValidator(schema)).toBe(expected);
      expect(metaSchemaValidator.errors ?? null).toEqual(fresh.errors ?? null);
      if (!expected) invalid++;
    }
    expect(invalid).toBe(5);
  });
});
