/**
 * Two real successive releases of GitHub's REST description (@octokit/openapi 22.0.0, kept
 * gzipped in fixtures, and the installed 23.x): the report's counts must match an independent
 * count made here from the raw documents' paths and methods. The whole `svc diff` on these two
 * documents (disk included) is timed by bench/diff-bench.ts.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { FolderModel } from '../folder/model.js';
import { diffEndpoints } from '../generator/diff/index.js';
import { toEndpoints } from '../generator/endpoints/index.js';
import { mergeImport } from '../generator/merge/index.js';
import { parseDocument } from '../generator/parse/index.js';
import { buildReport, renderReportMarkdown } from '../generator/report/index.js';
import { buildTools } from '../generator/tools/index.js';
import type { Endpoint } from '../schemas/types.js';
import { GITHUB_INSTALLED, readGithub22 } from './helpers/github-documents.js';

const newer = GITHUB_INSTALLED;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

/**
 * The independent count, straight from the JSON: METHOD + path with parameter names blanked →
 * "METHOD operationId" (a path renamed under the same method and operationId is one operation).
 */
function operations(text: string): Map<string, string> {
  const doc = JSON.parse(text) as { paths: Record<string, Record<string, { operationId?: string }>> };
  const out = new Map<string, string>();
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const m of METHODS) {
      const op = item[m];
      if (op) out.set(`${m.toUpperCase()} ${p.replace(/\{[^}]*\}/g, '{}')}`, `${m} ${op.operationId ?? ''}`);
    }
  }
  return out;
}

function countOnce(values: string[]): Map<string, number> {
  const n = new Map<string, number>();
  for (const v of values) n.set(v, (n.get(v) ?? 0) + 1);
  return n;
}

async function endpointsOf(text: string, origin: string): Promise<Endpoint[]> {
  return toEndpoints(await parseDocument({ text, origin, bytes: Buffer.byteLength(text) }));
}

describe.skipIf(!existsSync(newer))("GitHub's description, release 22.0.0 → installed release", () => {
  it('counts added, removed and unchanged endpoints exactly as the raw documents say', async () => {
    const oldText = (await readGithub22()).toString('utf8');
    const newText = await readFile(newer, 'utf8');
    const before = operations(oldText);
    const after = operations(newText);
    const addedKeys = [...after.keys()].filter((k) => !before.has(k));
    const removedKeys = [...before.keys()].filter((k) => !after.has(k));
    const addedOps = countOnce(addedKeys.map((k) => after.get(k)!));
    const removedOps = countOnce(removedKeys.map((k) => before.get(k)!));
    const renamed = [...addedOps].filter(
      ([op, n]) => n === 1 && !op.endsWith(' ') && removedOps.get(op) === 1,
    ).length;
    const added = addedKeys.length - renamed;
    const removed = removedKeys.length - renamed;
    expect(added).toBeGreaterThan(0);
    expect(removed).toBeGreaterThan(0);

    // The pipeline of `svc import` minus disk: the previous folder is the first import of 22.0.0.
    const oldEndpoints = await endpointsOf(oldText, '/old/api.github.com.json');
    const newEndpoints = await endpointsOf(newText, newer);
    const first = buildTools(oldEndpoints);
    const previous: FolderModel = {
      config: {} as FolderModel['config'],
      tools: first.map(({ key, tool }) => ({ key, file: `Tools/${key}.yaml`, tool })),
      skills: [],
      prompts: [],
      resources: [],
      docs: [],
      widgets: [],
    };
    // A first import records what it generated (.svc/generated.json): the merge bases.
    const bases = new Map(first.map(({ key, tool }) => [key, structuredClone(tool)]));
    const merged = mergeImport({ previous, bases, tools: buildTools(newEndpoints) });
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
    const pathChanged = report.endpoints.filter((x) =>
      x.changes.some((c) => c.id === 'endpoint-path-changed'),
    );
    expect(pathChanged).toHaveLength(renamed);
    // A removal breaks callers, unless the endpoint was deprecated first (a warning, issue 24).
    const removedList = report.endpoints.filter((x) => x.kind === 'removed');
    expect(removedList.every((x) => x.breaking === (x.changes[0]!.id === 'endpoint-removed'))).toBe(true);
    expect(removedList.some((x) => x.changes[0]!.id === 'endpoint-removed-deprecated')).toBe(true);
    // Every tool of the first import was disabled and untouched: removed endpoints remove their tools.
    expect(report.counts.tools.removed).toBe(removed);
    expect(report.counts.tools.added).toBe(added);
    expect(report.counts.tools.total).toBe(after.size);
    const names = new Set(merged.tools.map((t) => t.tool.name));
    expect(names.size).toBe(merged.tools.length);
    expect(renderReportMarkdown(report).length).toBeLessThan(65_536);
  }, 120_000);
});
