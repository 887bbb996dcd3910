/**
 * GitHub's whole API with every tool enabled (issue 19's "done when"): `svc validate` says the
 * folder gets search mode under `discovery: auto`; the runtime's tools/list is a few KB instead
 * of megabytes; search finds what a person asks for; a disabled tool is never found.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import { readGithub22 } from './helpers/github-documents.js';
import { connectClient } from './helpers/mcp-client.js';
import { svc } from './helpers/run-cli.js';

let work: string;
let dir: string;
let runtime: RunningRuntime;
let client: Client;
const DISABLED = 'repos_delete';

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-discovery-gh-'));
  await writeFile(join(work, 'github.json'), await readGithub22());
  dir = join(work, 'gh');
  const init = await svc(['init', dir, '--name', 'GitHub', '--openapi', join(work, 'github.json')], {
    cwd: work,
  });
  expect(init.code, init.stderr).toBe(0);
  expect(init.stdout).toContain('Discovery is auto');
  for (const file of await readdir(join(dir, 'Tools'))) {
    if (!file.endsWith('.yaml') || file === `${DISABLED}.yaml`) continue;
    const path = join(dir, 'Tools', file);
    await writeFile(path, (await readFile(path, 'utf8')).replace(/^enabled: false$/m, 'enabled: true'));
  }
  runtime = await startRuntime({ env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0' }), folderDir: dir });
  client = await connectClient(runtime.url, 'gh', 'modern');
}, 120_000);
afterAll(async () => {
  await client?.close();
  await runtime?.close();
  await rm(work, { recursive: true, force: true });
});

it('svc validate reports search mode and the size of tools/list in it', async () => {
  const run = await svc(['validate', dir, '--json'], { cwd: work });
  expect(run.code, run.stderr).toBe(0);
  const report = JSON.parse(run.stdout) as {
    discovery: {
      setting: string;
      mode: string;
      toolsListBytes: number;
      allToolsListBytes: number;
      servedTools: number;
    };
  };
  expect(report.discovery).toMatchObject({ setting: 'auto', mode: 'search' });
  expect(report.discovery.servedTools).toBeGreaterThan(1000);
  expect(report.discovery.allToolsListBytes).toBeGreaterThan(1_000_000);
  expect(report.discovery.toolsListBytes).toBeLessThan(40 * 1024);
  const text = await svc(['validate', dir], { cwd: work });
  expect(text.stdout).toMatch(/in search mode \(discovery: auto — \d+ enabled tools \(more than 40\)\)/);
});

it('serves tools/list under 40 KB and finds what a person asks for', async () => {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(['search_tools', 'call_tool']);
  expect(Buffer.byteLength(JSON.stringify({ tools }))).toBeLessThan(40 * 1024);
  const search = async (query: string) => {
    const result = await client.callTool({ name: 'search_tools', arguments: { query, limit: 5 } });
    return (result.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
  };
  expect(await search('merge this pull request')).toContain('pulls_merge');
  expect(await search('star a repository')).toContain('activity_star-repo-for-authenticated-user');
  expect(await search('delete a repository')).not.toContain(DISABLED);
});
