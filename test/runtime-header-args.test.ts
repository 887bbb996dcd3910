/**
 * A header argument the HTTP stack cannot send (non-ASCII) is refused before any request,
 * with an isError result naming the argument, not reported as "could not reach <upstream>".
 * Real runtime, real upstream on 127.0.0.1, the MCP SDK's client.
 */
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
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`);
  runtime = await startRuntime({
    env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_SECRET: 'sk-header-test' }),
    folderDir: folder.dir,
  });
  client = await connectClient(runtime.url, 'header-args');
});
afterAll(async () => {
  await client?.close();
  await runtime?.close();
  await upstream?.close();
  await folder?.remove();
});

it('names the argument whose header value is not ASCII, and sends nothing', async () => {
  const before = upstream.requests.length;
  const result = await client.callTool({ name: 'echo_get', arguments: { id: '1', trace: 'naïve ☃' } });
  expect(result.isError).toBe(true);
  const text = JSON.stringify(result.content);
  expect(text).toMatch(/argument \\"trace\\"/);
  expect(text).toMatch(/X-Trace/);
  expect(text).not.toMatch(/could not reach/);
  expect(upstream.requests.length).toBe(before);
});
