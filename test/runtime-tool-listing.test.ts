/**
 * What tools/list shows a host: a tool's `title` (from the operation summary), and no output
 * schemas when config.yaml says `outputSchemas: false` (a tool that had one then answers with
 * text only, no structuredContent). Real runtime, real upstream, the MCP SDK's client.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import { connectClient } from './helpers/mcp-client.js';

let upstream: EchoUpstream;
let folder: TempFolder;
let runtime: RunningRuntime;
let client: Client;

beforeAll(async () => {
  upstream = await startEchoUpstream();
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`, (config) =>
    config.replace(/^requiredEnv:/m, 'outputSchemas: false\nrequiredEnv:'),
  );
  const file = join(folder.dir, 'Tools', 'structured.yaml');
  await writeFile(
    file,
    (await readFile(file, 'utf8')).replace(
      /^name: structured$/m,
      'name: structured\ntitle: Echo as an object',
    ),
  );
  runtime = await startRuntime({
    env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_SECRET: 'sk-listing-test' }),
    folderDir: folder.dir,
  });
  client = await connectClient(runtime.url, 'tool-listing');
});
afterAll(async () => {
  await client?.close();
  await runtime?.close();
  await upstream?.close();
  await folder?.remove();
});

it('lists the title and leaves output schemas out with outputSchemas: false', async () => {
  const { tools } = await client.listTools();
  const structured = tools.find((t) => t.name === 'structured');
  expect(structured?.title).toBe('Echo as an object');
  expect(structured?.outputSchema).toBeUndefined();
  expect(tools.filter((t) => t.outputSchema !== undefined)).toEqual([]);
  const result = await client.callTool({ name: 'structured', arguments: { q: 'x' } });
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent).toBeUndefined();
  expect(JSON.stringify(result.content)).toContain('GET');
});
