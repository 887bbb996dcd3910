import { describe, expect, it } from 'vitest';
import { checkTools, compileToolSchema } from './check-tools.js';
import { loadFolder } from './load-folder.js';
import type { FolderFiles } from './model.js';

const CONFIG = `schemaVersion: 1
server:
  id: s
  name: S
  published: false
app:
  name: S
  provider: manual
source:
  kind: manual
auth:
  mode: none
  hasAuthSecret: false
apiBaseUrl: https://api.example.test
requiredEnv: []
`;

function toolFile(parts: {
  path?: string;
  locations?: string;
  input?: string;
  output?: string;
  extra?: string;
}) {
  return `name: t
description: d
enabled: true
sortOrder: 0
origin: manual
endpoint:
  method: GET
  path: ${parts.path ?? '/items'}
classification: get
annotations:
  readOnlyHint: true
  destructiveHint: false
  idempotentHint: true
  openWorldHint: true
locations:
${parts.locations ?? '  q: { in: query, name: q }'}
inputSchema:
${parts.input ?? '  type: object\n  properties:\n    q: { type: string }'}
${parts.output ? `outputSchema:\n${parts.output}\n` : ''}${parts.extra ?? ''}`;
}

function check(tool: string, compile = false) {
  const files: FolderFiles = { 'config.yaml': CONFIG, 'Tools/t.yaml': tool };
  const loaded = loadFolder(files);
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.describe()).join('\n'));
  return checkTools(loaded.folder, { files, compile });
}

describe('checkTools', () => {
  it('accepts a tool that works', () => {
    const r = check(toolFile({ output: '  type: object\n  properties:\n    n: { type: integer }' }), true);
    expect(r).toEqual({ errors: [], warnings: [] });
  });

  it('refuses an unknown type, naming file, field and line', () => {
    const r = check(toolFile({ input: '  type: object\n  properties:\n    q: { type: strng }' }));
    expect(r.errors).toHaveLength(1);
    const e = r.errors[0]!;
    expect(e.place).toMatchObject({
      file: 'Tools/t.yaml',
      field: '/inputSchema/properties/q/type',
      line: 20,
    });
    expect(e.message).toMatch(/must be one of .*string.*\(is "strng"\)/);
  });

  it('refuses a required name no property declares', () => {
    const r = check(
      toolFile({ input: '  type: object\n  required: [q, ghost]\n  properties:\n    q: { type: string }' }),
    );
    expect(r.errors.map((e) => [e.place.field, e.message])).toEqual([
      ['/inputSchema/required/1', expect.stringMatching(/"ghost" is required but no property/)],
    ]);
  });

  it('warns, without refusing the folder, about a tool that is not served', () => {
    const broken = '  type: object\n  required: [q, ghost]\n  properties:\n    q: { type: strng }';
    const r = check(toolFile({ input: broken }).replace('enabled: true', 'enabled: false'));
    expect(r.errors).toEqual([]);
    expect(r.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(
        /^tool t \(not served\): the inputSchema is not a valid JSON Schema.*fix it before enabling/,
      ),
    ]);
  });

  it('accepts required names declared elsewhere (allOf, patternProperties)', () => {
    const r = check(
      toolFile({
        input: '  type: object\n  required: [q]\n  allOf:\n    - properties:\n        q: { type: string }',
      }),
    );
    expect(r.errors).toEqual([]);
  });

  it('refuses a path variable with no path location, and one whose argument is undeclared', () => {
    const missing = check(toolFile({ path: '/items/{id}' }));
    expect(missing.errors.map((e) => e.place.field)).toEqual(['/endpoint/path']);
    expect(missing.errors[0]!.message).toMatch(/\{id\}/);
    const undeclared = check(toolFile({ path: '/items/{id}', locations: '  id: { in: path, name: id }' }));
    expect(undeclared.errors.map((e) => e.place.field)).toEqual(['/locations/id']);
    const fine = check(
      toolFile({
        path: '/items/{id}',
        locations: '  id: { in: path, name: id }',
        input: '  type: object\n  required: [id]\n  properties:\n    id: { type: string }',
      }),
    );
    expect(fine.errors).toEqual([]);
  });

  it('refuses a dangling local $ref and a pattern that is not a regular expression', () => {
    const r = check(
      toolFile({
        input:
          '  type: object\n  properties:\n    q: { $ref: "#/$defs/nope" }\n    p: { type: string, pattern: "([" }',
      }),
    );
    expect(r.errors.map((e) => e.place.field).sort()).toEqual([
      '/inputSchema/properties/p/pattern',
      '/inputSchema/properties/q/$ref',
    ]);
  });

  it('compiles output schemas too, when asked (validate)', () => {
    const r = check(
      toolFile({ output: '  type: object\n  properties:\n    n: { $ref: "https://elsewhere.test/s.json" }' }),
      true,
    );
    expect(r.errors.map((e) => e.place.field)).toEqual(['/outputSchema/properties/n/$ref']);
    expect(r.errors[0]!.message).toMatch(/cannot be compiled/);
  });

  it('refuses a remote $ref without compiling (what serve checks), as validate does, naming file and field', () => {
    const tool = toolFile({
      input: '  type: object\n  properties:\n    q: { $ref: "https://elsewhere.test/s.json#/q" }',
    });
    for (const compile of [false, true]) {
      const r = check(tool, compile);
      expect(r.errors.map((e) => [e.place.file, e.place.field, e.place.line])).toEqual([
        ['Tools/t.yaml', '/inputSchema/properties/q/$ref', 20],
      ]);
      expect(r.errors[0]!.message).toMatch(
        /"https:\/\/elsewhere.test\/s.json#\/q" points outside this schema; remote references are never fetched/,
      );
    }
    // A $ref naming a $id declared inside the schema is no remote reference.
    const local = toolFile({
      input:
        '  type: object\n  properties:\n    q: { $ref: "urn:x:q" }\n  $defs:\n    q: { $id: "urn:x:q", type: string }',
    });
    expect(check(local, true).errors).toEqual([]);
  });

  it('warns, naming file and field, about a pattern the linear-time engine cannot run, and serves the tool', () => {
    const tool = toolFile({
      input: '  type: object\n  properties:\n    q: { type: string, pattern: "^(a+)\\\\1$" }',
    });
    for (const compile of [false, true]) {
      const r = check(tool, compile);
      expect(r.errors).toEqual([]);
      expect(r.warnings.map((w) => [w.place.file, w.place.field, w.message])).toEqual([
        [
          'Tools/t.yaml',
          '/inputSchema/properties/q/pattern',
          expect.stringMatching(/uses a backreference \(\\1\).*not checked against it/),
        ],
      ]);
    }
  });

  it('reports a schema shared by several tools once per tool, each with its own file, line and state', () => {
    const broken = '  type: object\n  required: [ghost]\n  properties:\n    q: { type: string }';
    const files: FolderFiles = {
      'config.yaml': CONFIG,
      'Tools/a.yaml': toolFile({ input: broken }).replace('name: t', 'name: a'),
      'Tools/b.yaml': toolFile({ input: broken })
        .replace('name: t', 'name: b')
        .replace('enabled: true', 'enabled: false'),
    };
    const loaded = loadFolder(files);
    if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.describe()).join('\n'));
    for (const compile of [false, true]) {
      const r = checkTools(loaded.folder, { files, compile });
      expect(r.errors.map((e) => [e.place.file, e.place.field, e.place.line])).toEqual([
        ['Tools/a.yaml', '/inputSchema/required/0', 19],
      ]);
      expect(r.warnings.map((w) => [w.place.file, w.place.field, w.message])).toEqual([
        ['Tools/b.yaml', '/inputSchema/required/0', expect.stringMatching(/^tool b \(not served\): "ghost"/)],
      ]);
    }
  });

  it('servedOnly: the same errors, and the tools that are not served are not checked', () => {
    const broken = '  type: object\n  required: [ghost]\n  properties:\n    q: { type: string }';
    const files: FolderFiles = {
      'config.yaml': CONFIG,
      'Tools/a.yaml': toolFile({ input: broken }).replace('name: t', 'name: a'),
      'Tools/b.yaml': toolFile({ input: broken })
        .replace('name: t', 'name: b')
        .replace('enabled: true', 'enabled: false'),
      'Tools/c.yaml': toolFile({ input: broken, extra: 'stale: true\n' }).replace('name: t', 'name: c'),
    };
    const loaded = loadFolder(files);
    if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.describe()).join('\n'));
    const all = checkTools(loaded.folder, { files });
    const served = checkTools(loaded.folder, { files, servedOnly: true });
    expect(served.errors).toEqual(all.errors);
    expect(served.errors.map((e) => e.place.file)).toEqual(['Tools/a.yaml']);
    expect(all.warnings.map((w) => w.place.file)).toEqual(['Tools/b.yaml', 'Tools/c.yaml', 'Tools/c.yaml']);
    expect(served.warnings).toEqual([]);
  });

  it('warns about a stale tool, naming it', () => {
    const r = check(toolFile({ extra: 'stale: true\n' }));
    expect(r.errors).toEqual([]);
    expect(r.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(
        /tool t is stale: its endpoint GET \/items is gone .* not served even though it is enabled/,
      ),
    ]);
  });
});

describe('compileToolSchema', () => {
  it('compiles once per schema object', () => {
    const schema = { type: 'object', properties: { a: { type: 'integer' } } };
    const first = compileToolSchema(schema);
    expect(compileToolSchema(schema)).toBe(first);
    expect(typeof first === 'function' && first({ a: 1 }) && !first({ a: 'x' })).toBe(true);
  });
});
