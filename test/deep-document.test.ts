/**
 * A document nested far deeper than any API description (100,000 levels) is refused as bad input with the
 * document and the JSON pointer where the nesting limit is crossed, JSON and YAML alike; one nested just
 * under the limit imports.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DOCUMENT_DEPTH } from '../generator/parse/index.js';
import { svc } from './helpers/run-cli.js';

const HEAD = `openapi: 3.0.3
info: { title: Deep, version: '1' }
servers: [{ url: 'https://api.example.com' }]
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        '200': { description: ok }
`;

let work: string;
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'svc-deep-'));
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  const file = path.join(work, name);
  writeFileSync(file, text);
  return file;
}

/** `levels` nested arrays as the value of x-deep: the document itself is one more level. */
const jsonDeep = (levels: number) =>
  `{"openapi":"3.0.3","info":{"title":"Deep","version":"1"},"servers":[{"url":"https://api.example.com"}],"paths":{"/pets":{"get":{"operationId":"listPets","responses":{"200":{"description":"ok"}}}}},"x-deep":${'['.repeat(levels)}${']'.repeat(levels)}}`;

// The root is level 1, /x-deep level 2: the first container past the limit is MAX_DOCUMENT_DEPTH - 1 below /x-deep.
const crossing = `/x-deep${'/0'.repeat(MAX_DOCUMENT_DEPTH - 1)}`;

describe('a document nested 100,000 levels deep', () => {
  it.each([
    ['JSON', 'deep.json', jsonDeep(100_000)],
    ['YAML flow', 'deep-flow.yaml', `${HEAD}x-deep: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`],
    ['YAML block sequences', 'deep-seq.yaml', `${HEAD}x-deep:\n${'- '.repeat(100_000)}x\n`],
  ])('%s: refused as bad input, naming the document and the pointer', async (_kind, name, text) => {
    const file = write(name, text);
    const run = await svc(['init', `out-${name}`, '--name', 'Deep', '--openapi', file], { cwd: work });
    expect(run.code).toBe(3);
    expect(run.stderr).not.toMatch(/INTERNAL|call stack/i);
    expect(run.stderr).toContain('SPEC_INVALID');
    expect(run.stderr).toContain(file);
    expect(run.stderr).toContain(`at ${crossing}:`);
    expect(run.stderr).toContain(String(MAX_DOCUMENT_DEPTH));
    expect(existsSync(path.join(work, `out-${name}`))).toBe(false);
  });

  it('YAML block maps: the pointer names the keys', async () => {
    let text = `${HEAD}x-deep:\n`;
    for (let i = 1; i <= MAX_DOCUMENT_DEPTH + 5; i++) text += `${'  '.repeat(i)}k${i}:\n`;
    text += `${'  '.repeat(MAX_DOCUMENT_DEPTH + 6)}leaf: 1\n`;
    const file = write('deep-map.yaml', text);
    const run = await svc(['init', 'out-map', '--name', 'Deep', '--openapi', file], { cwd: work });
    expect(run.code).toBe(3);
    const keys = Array.from({ length: MAX_DOCUMENT_DEPTH - 1 }, (_, i) => `/k${i + 1}`).join('');
    expect(run.stderr).toContain(`at /x-deep${keys}:`);
  });

  it('a document just under the limit imports', async () => {
    const file = write('under.json', jsonDeep(MAX_DOCUMENT_DEPTH - 1));
    const run = await svc(['init', 'out-under', '--name', 'Deep', '--openapi', file], { cwd: work });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});
