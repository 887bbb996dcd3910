/**
 * Two real successive releases of GitHub's REST description (@octokit/openapi 22.0.0, kept
 * gzipped in fixtures, and the installed 23.x): the report's counts must match an independent
 * count made here from the raw documents' paths and methods. The whole `svc diff` on these two
 * documents (disk included) is timed by bench/diff-bench.ts.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { FolderModel } from '../folder/model.js';
import { diffEndpoints } from '../generator/diff/index.js';
import { toEndpoints } from '../generator/endpoints/index.js';
import { mergeImport } from '../generator/merge/index.js';
import { parseDocument } from '../generator/parse/index.js';
import { buildReport, renderReportMarkdown } from '../generator/report/index.js';
import { buildTools } from '../generator/tools/index.js';
import type { Endpoint } from '../schemas/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const older = path.join(here, '..', 'fixtures', 'reimport', 'api.github.com-22.0.0.json.gz');
const newer = path.join(
  here,
  '..',
  'node_modules',
  '@octokit',
  'openapi',
  'generated',
  'api.github.com.json',
);
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

/** The independent count: METHOD + path with parameter names blanked, straight from the JSON. */
function operations(text: string): Set<string> {
  const doc = JSON.parse(text) as { paths: Record<string, Record<string, unknown>> };
  const out = new Set<string>();
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const m of METHODS) if (item[m]) out.add(`${m.toUpperCase()} ${p.replace(/\{[^}]*\}/g, '{}')}`);
  }
  return out;
}

async function endpointsOf(text: string, origin: string): Promise<Endpoint[]> {
  return toEndpoints(await parseDocument({ text, origin, bytes: Buffer.byteLength(text) }));
}

describe.skipIf(!existsSync(newer))("GitHub's description, release 22.0.0 → installed release", () => {
  it('counts added, removed and unchanged endpoints exactly as the raw documents say', async () => {
    const oldText = gunzipSync(await readFile(older)).toString('utf8');
    const newText = await readFile(newer, 'utf8');
    const before = operations(oldText);
    const after = operations(newText);
    const added = [...after].filter((k) => !before.has(k)).length;
    const removed = [...before].filter((k) => !after.has(k)).length;
    expect(added).toBeGreaterThan(0);
    expect(removed).toBeGreaterThan(0);

    // The pipeline of `svc import` minus disk: the previous folder is the first import of 22.0.0.
    const oldEndpoints = await endpointsOf(oldText, '/old/api.github.com.json');
    const newEndpoints = await endpointsOf(newText, newer);
    const previous: FolderModel = {
      config: {} as FolderModel['config'],
      tools: buildTools(oldEndpoints).map(({ key, tool }) => ({ key, file: `Tools/${key}.yaml`, tool })),
      skills: [],
      prompts: [],
      resources: [],
      docs: [],
      widgets: [],
    };
    const merged = mergeImport({ previous, tools: buildTools(newEndpoints) });
    const report = buildReport({
      source: { location: newer },
      previous: { seq: 1 },
      endpointsBefore: oldEndpoints.length,
      endpointsAfter: newEndpoints.length,
      endpoints: diffEndpoints(oldEndpoints, newEndpoints),
      notes: merged.notes,
      tools: merged.tools,
      changed: true,
    });

    const e = report.counts.endpoints;
    expect({ before: e.before, after: e.after, added: e.added, removed: e.removed }).toEqual({
      before: before.size,
      after: after.size,
      added,
      removed,
    });
    expect(e.unchanged + e.changed + e.added).toBe(after.size);
    expect(e.changed).toBeGreaterThan(0);
    expect(report.endpoints.filter((x) => x.kind === 'removed').every((x) => x.breaking)).toBe(true);
    // Every tool of the first import was disabled and untouched: removed endpoints remove their tools.
    expect(report.counts.tools.removed).toBe(removed);
    expect(report.counts.tools.added).toBe(added);
    expect(report.counts.tools.total).toBe(after.size);
    const names = new Set(merged.tools.map((t) => t.tool.name));
    expect(names.size).toBe(merged.tools.length);
    expect(renderReportMarkdown(report).length).toBeLessThan(65_536);
  }, 120_000);
});
