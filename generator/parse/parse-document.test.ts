import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../core/svc-error.js';
import type { SourceText } from '../sources/index.js';
import { readExternalRefs } from '../import/read-external-refs.js';
import { parseDocument } from './parse-document.js';

function source(text: string, origin = '/specs/api.json'): SourceText {
  return { text, origin, bytes: Buffer.byteLength(text) };
}

async function failure(promise: Promise<unknown>): Promise<SvcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SvcError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

const minimal30 = `openapi: 3.0.3
info:
  title: ' Tiny '
  description: A tiny API.
  version: '1.0'
paths:
  /ping:
    get:
      responses:
        '200':
          description: pong
`;

describe('parseDocument', () => {
  it('decides YAML by content even when the name says .json', async () => {
    const parsed = await parseDocument(source(minimal30, '/specs/looks-like.json'));
    expect(parsed.version).toBe('openapi-3.0');
    expect(parsed.title).toBe('Tiny');
    expect(parsed.description).toBe('A tiny API.');
    expect(parsed.docVersion).toBe('1.0');
  });

  it('reads JSON, recognising 3.1 and Swagger 2.0', async () => {
    const v31 = await parseDocument(
      source(JSON.stringify({ openapi: '3.1.0', info: { title: 'T', version: '1' }, paths: {} })),
    );
    expect(v31.version).toBe('openapi-3.1');
    const v2 = await parseDocument(
      source(JSON.stringify({ swagger: '2.0', info: { title: 'S', version: '1' }, paths: {} })),
    );
    expect(v2.version).toBe('swagger-2.0');
  });

  it('names line and column of a JSON syntax error', async () => {
    const error = await failure(parseDocument(source('{\n  "openapi": "3.0.0",\n  "tags": [1, 2\n}')));
    expect(error.code).toBe('SOURCE_NOT_JSON_OR_YAML');
    expect(error.place.file).toBe('/specs/api.json');
    expect(error.place.line).toBe(4);
  });

  it('reads YAML flow style that merely looks like JSON', async () => {
    const parsed = await parseDocument(
      source('{openapi: 3.0.3, info: {title: F, version: "1"}, paths: {},}'),
    );
    expect(parsed.title).toBe('F');
  });

  it('names the line of a YAML syntax error', async () => {
    const error = await failure(
      parseDocument(source('openapi: 3.0.0\ninfo:\n  title: [unclosed\n', '/a.yaml')),
    );
    expect(error.code).toBe('SOURCE_NOT_JSON_OR_YAML');
    expect(error.place.line).toBeGreaterThanOrEqual(3);
  });

  it('ends a YAML syntax error with its excerpt, not a dangling "at line L, column C:"', async () => {
    const error = await failure(
      parseDocument(source('openapi: 3.0.0\ninfo:\n  title: x\n bad: [\n', '/b.yaml')),
    );
    expect(error.code).toBe('SOURCE_NOT_JSON_OR_YAML');
    expect(error.message).not.toMatch(/:\s*$/);
    expect(error.message).toMatch(/at line 4, column 1:\n\n {2}title: x\n bad: \[\n\^$/);
  });

  it('reports an HTML page as HTML, naming where it came from', async () => {
    for (const html of ['<!DOCTYPE html>\n<html><body>Docs</body></html>', '\n  <html lang="en"><head>']) {
      const error = await failure(parseDocument(source(html, 'https://api.example.test/docs')));
      expect(error.code).toBe('SOURCE_NOT_JSON_OR_YAML');
      expect(error.message).toBe(
        'got an HTML page, not an OpenAPI document, from https://api.example.test/docs; give the address of the JSON or YAML document itself',
      );
      expect(error.place.url).toBe('https://api.example.test/docs');
    }
  });

  it('refuses a YAML alias bomb', async () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 8; i++) {
      const prev = String.fromCharCode(97 + i);
      const next = String.fromCharCode(98 + i);
      lines.push(`${next}: &${next} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const error = await failure(parseDocument(source(lines.join('\n'), '/bomb.yaml')));
    expect(error.code).toBe('SOURCE_YAML_BOMB');
  });

  it('refuses what is not an OpenAPI document', async () => {
    expect((await failure(parseDocument(source('[1, 2]')))).code).toBe('SPEC_INVALID');
    expect((await failure(parseDocument(source('just: yaml')))).message).toMatch(/no "openapi: 3.x"/);
    expect((await failure(parseDocument(source('swagger: 2.0\n')))).message).toMatch(/only "2.0"/);
    expect((await failure(parseDocument(source('{"openapi":"4.0.0"}')))).place.field).toBe('/openapi');
  });

  it('names the field of a structural error', async () => {
    const doc = {
      openapi: '3.0.3',
      info: { title: 'T', version: '1' },
      paths: { '/x': { get: { responses: 5 } } },
    };
    const error = await failure(parseDocument(source(JSON.stringify(doc))));
    expect(error.code).toBe('SPEC_INVALID');
    expect(error.place.field).toBe('/paths/~1x/get/responses');
    expect(error.message).toContain('/specs/api.json');
  });

  it('runs the Swagger 2.0 spec checks (duplicate operationId)', async () => {
    const op = { operationId: 'same', responses: { 200: { description: 'ok' } } };
    const doc = {
      swagger: '2.0',
      info: { title: 'T', version: '1' },
      paths: { '/a': { get: op }, '/b': { get: op } },
    };
    const error = await failure(parseDocument(source(JSON.stringify(doc))));
    expect(error.code).toBe('SPEC_INVALID');
    expect(error.message).toMatch(/Duplicate operation id 'same'/);
  });

  it('refuses a $ref that points at nothing, naming it', async () => {
    const doc = {
      openapi: '3.0.3',
      info: { title: 'T', version: '1' },
      paths: { '/x': { get: { responses: { 200: { $ref: '#/components/responses/Gone' } } } } },
    };
    const error = await failure(parseDocument(source(JSON.stringify(doc))));
    expect(error.code).toBe('SPEC_INVALID');
    expect(error.message).toContain('#/components/responses/Gone');
    expect(error.place.field).toBe('/paths/~1x/get/responses/200');
  });
});

describe('parseDocument: external references', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-parse-'));
    await writeFile(join(dir, 'pet.yaml'), 'type: object\nproperties:\n  name:\n    type: string\n');
    await writeFile(
      join(dir, 'api.yaml'),
      `openapi: 3.0.3
info: { title: T, version: '1' }
paths:
  /pets:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                $ref: './pet.yaml'
`,
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('refuses an external $ref unless allowed, naming the ref', async () => {
    const { readFile } = await import('node:fs/promises');
    const text = await readFile(join(dir, 'api.yaml'), 'utf8');
    const error = await failure(parseDocument(source(text, join(dir, 'api.yaml'))));
    expect(error.code).toBe('SPEC_EXTERNAL_REF');
    expect(error.message).toContain('./pet.yaml');
    expect(error.place.field).toContain('/schema');
  });

  it('bundles external refs into internal ones when allowed', async () => {
    const { readFile } = await import('node:fs/promises');
    const text = await readFile(join(dir, 'api.yaml'), 'utf8');
    const read = source(text, join(dir, 'api.yaml'));
    const parsed = await parseDocument(read, {
      allowExternalRefs: true,
      externalFiles: await readExternalRefs(read),
    });
    expect(JSON.stringify(parsed.document)).not.toContain('pet.yaml');
    expect(JSON.stringify(parsed.document)).toContain('"name":{"type":"string"}');
  });
});
