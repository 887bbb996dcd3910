import { describe, expect, test } from 'vitest';
import { lineOfPointer, parseYaml, pointerSegments } from './yaml-file.js';

describe('parseYaml', () => {
  test('parses one document and keeps lines for pointers', () => {
    const r = parseYaml('name: a\nendpoint:\n  method: GET\n  path: /x\nlist:\n  - one\n  - two\n');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.parsed.value).toEqual({
      name: 'a',
      endpoint: { method: 'GET', path: '/x' },
      list: ['one', 'two'],
    });
    expect(lineOfPointer(r.parsed, '/endpoint/path')).toBe(4);
    expect(lineOfPointer(r.parsed, '/list/1')).toBe(7);
    expect(lineOfPointer(r.parsed, '/endpoint')).toBe(2);
    // A missing field is reported at its nearest existing ancestor.
    expect(lineOfPointer(r.parsed, '/endpoint/nope/deeper')).toBe(2);
    expect(lineOfPointer(r.parsed, '')).toBe(1);
  });

  test('adds the offset of embedded YAML', () => {
    const r = parseYaml('\na: 1\nb: 2', 0);
    expect(r.ok && lineOfPointer(r.parsed, '/b')).toBe(3);
  });

  test('refuses an alias bomb', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ].join('\n');
    const r = parseYaml(bomb);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.bomb).toBe(true);
    expect(r.problems[0]?.message).toMatch(/alias bomb/);
  });

  test('a few aliases are fine', () => {
    const r = parseYaml('base: &b {x: 1}\nother: *b\n');
    expect(r.ok && r.parsed.value).toEqual({ base: { x: 1 }, other: { x: 1 } });
  });

  test('reports syntax errors and duplicate keys with their line', () => {
    const dup = parseYaml('a: 1\nb: 2\na: 3\n');
    expect(dup.ok).toBe(false);
    if (!dup.ok) expect(dup.problems[0]).toMatchObject({ line: 3 });
    const bad = parseYaml('a: [1, 2\nb: 3\n');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problems[0]?.line).toBeGreaterThanOrEqual(1);
  });

  test('refuses several documents in one file', () => {
    expect(parseYaml('a: 1\n---\nb: 2\n').ok).toBe(false);
  });
});

test('pointerSegments unescapes ~1 and ~0', () => {
  expect(pointerSegments('/a~1b/c~0d/0')).toEqual(['a/b', 'c~d', '0']);
  expect(pointerSegments('')).toEqual([]);
});
