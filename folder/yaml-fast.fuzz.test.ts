/**
 * Fuzz: the fast reader against the `yaml` package as the folder loader uses it (parseYaml). On YAML in
 * svc's own output style and on random mutations of it (a hand edit gone wrong, a hostile key), the fast
 * reader either declines (FALLBACK) or gives exactly the value `yaml` gives: same own keys, same
 * prototypes. Where `yaml` refuses a text, the fast reader must decline it.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { yamlText } from '../generator/render/yaml-text.js';
import { FALLBACK, readYamlFast } from './yaml-fast.js';
import { parseYaml } from './yaml-file.js';

/** More runs for a longer hunt: FUZZ_RUNS=50000 npx vitest run folder/yaml-fast.fuzz.test.ts */
const FUZZ_RUNS = Number(process.env['FUZZ_RUNS'] ?? 1500);
/** A fixed seed keeps CI repeatable; FUZZ_SEED=random (or a number) explores further. */
const FUZZ_SEED =
  process.env['FUZZ_SEED'] === 'random' ? undefined : Number(process.env['FUZZ_SEED'] ?? 20261123);

const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'enabled'];

const key = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('name', 'enabled', 'type', 'description', 'a', 'b', 'items') },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_KEYS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
);

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom('yes', 'null', '~', '1e3', '0x1F', '12:30', 'a: b', '- x', '#c', 'x #c', '"q"', "it's"),
  fc.array(fc.string({ maxLength: 6 }), { minLength: 2, maxLength: 4 }).map((lines) => lines.join('\n')),
);

const scalar = fc.oneof(
  text,
  fc.integer(),
  // Finite: svc writes what JSON documents hold (`.inf` and `.nan` are left to yaml).
  fc.double({ noDefaultInfinity: true, noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.constant({}),
  fc.constant([]),
);

const { map } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('map'), tie('list')),
  list: fc.array(tie('value'), { maxLength: 4 }),
  map: fc.array(fc.tuple(key, tie('value')), { maxLength: 5 }).map((entries) => {
    // Own keys, including "__proto__", the way a parser of JSON or YAML builds them.
    const out: Record<string, unknown> = {};
    for (const [k, v] of entries)
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    return out;
  }),
}));

/** Small edits of the kind a person (or an attacker) makes to a generated file. */
const mutation = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    chars: fc.constantFrom(
      ':',
      ': ',
      '#',
      ' #',
      ' ',
      '  ',
      '- ',
      '"',
      "'",
      '|',
      '\n',
      '\t',
      '&a ',
      '*a',
      '!!str ',
      '{',
      '[',
      '\\',
      '__proto__: ',
      '\n__proto__:\n  enabled: true',
    ),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('duplicate-line' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('rename-key' as const), at: fc.nat(), to: fc.constantFrom(...HOSTILE_KEYS) }),
);

type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function mutate(source: string, m: Mutation): string {
  if (source.length === 0) return source;
  const at = m.at % source.length;
  switch (m.kind) {
    case 'insert':
      return source.slice(0, at) + m.chars + source.slice(at);
    case 'delete':
      return source.slice(0, at) + source.slice(at + m.length);
    case 'duplicate-line': {
      const lines = source.split('\n');
      const i = m.at % lines.length;
      lines.splice(i, 0, lines[i] ?? '');
      return lines.join('\n');
    }
    case 'rename-key': {
      const lines = source.split('\n');
      const i = m.at % lines.length;
      lines[i] = (lines[i] ?? '').replace(/^(\s*(?:- )?)[^\s:"#-][^:]*:/, `$1${m.to}:`);
      return lines.join('\n');
    }
  }
}

function checkAgreement(source: string): void {
  const fast = readYamlFast(source);
  if (fast === FALLBACK) return;
  const slow = parseYaml(source);
  expect(slow.ok, `yaml refuses what the fast reader took:\n${source}`).toBe(true);
  if (!slow.ok) return;
  expect(isDeepStrictEqual(fast, slow.parsed.value), `different values for:\n${source}`).toBe(true);
}

describe('readYamlFast fuzzed against yaml', () => {
  test('svc-style output: same value as yaml (and taken fast)', () => {
    fc.assert(
      fc.property(map, (value) => {
        const source = yamlText(value);
        // An empty file is `{}`, which the fast reader leaves to yaml; everything else svc writes it reads.
        if (Object.keys(value).length > 0) expect(readYamlFast(source), source).not.toBe(FALLBACK);
        checkAgreement(source);
      }),
      { numRuns: Math.ceil(FUZZ_RUNS / 4), ...(FUZZ_SEED === undefined ? {} : { seed: FUZZ_SEED }) },
    );
  });

  test('mutations of svc-style output: same value as yaml, or a fallback', () => {
    fc.assert(
      fc.property(map, fc.array(mutation, { minLength: 1, maxLength: 3 }), (value, mutations) => {
        checkAgreement(mutations.reduce(mutate, yamlText(value)));
      }),
      { numRuns: FUZZ_RUNS, ...(FUZZ_SEED === undefined ? {} : { seed: FUZZ_SEED }) },
    );
  });
});
