import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { toEndpoints } from '../endpoints/index.js';
import { renderOpenApi } from '../render/render-folder.js';
import { buildTools } from '../tools/index.js';
import { decodedJson } from './decoded-json.js';
import { parseDocument } from './parse-document.js';

const documents: [string, () => string][] = [
  ['OpenAPI 3.1', () => readFileSync('fixtures/specs/catalog-3.1.json', 'utf8')],
  [
    'Swagger 2.0 as JSON',
    () => JSON.stringify(parseYaml(readFileSync('fixtures/specs/legacy-swagger-2.0.yaml', 'utf8'))),
  ],
  [
    'GitHub 22',
    () => gunzipSync(readFileSync('fixtures/reimport/api.github.com-22.0.0.json.gz')).toString('utf8'),
  ],
];

describe('the decoded JSON document, reused for Tools/openapi.json', () => {
  for (const [name, load] of documents) {
    it(`${name}: parsing, endpoints and tools leave it as parsed, so openapi.json is the same`, async () => {
      const text = load();
      const parsed = await parseDocument({ text, origin: 'doc.json', bytes: text.length });
      buildTools(toEndpoints(parsed));
      expect(decodedJson(text)).toBe(parsed.document);
      expect(parsed.document).toEqual(JSON.parse(text));
      expect(renderOpenApi(text)).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
    }, 60_000);
  }

  it('answers only for the very text decoded last', async () => {
    const text = '{"openapi":"3.1.0","info":{"title":"A","version":"1"},"paths":{}}';
    await parseDocument({ text, origin: 'a.json', bytes: text.length });
    expect(decodedJson(text.replace('"A"', '"B"'))).toBeUndefined();
    expect(decodedJson(`${text} `)).toBeUndefined();
    expect(decodedJson(text)).toEqual(JSON.parse(text));
  });
});
