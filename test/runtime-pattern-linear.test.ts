/**
 * A `pattern` from an API description cannot freeze the runtime. `^([a-zA-Z0-9]+\s?)+$` with a
 * 31-character argument that fails it took JavaScript's backtracking engine over a minute, with
 * the event loop blocked (`/healthz` silent, SIGTERM ignored). Patterns are now matched in linear
 * time on both paths a call can take (the hot path and the SDK's), so the calls below come back
 * as ordinary "invalid arguments" results and `/healthz` answers alongside them. The runtime runs
 * in this process: with the old engine this test would not finish at all.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFolder } from '../folder/index.js';
import { parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import { type EchoUpstream, startEchoUpstream } from '../runtime/testing/index.js';
import { connectClient, type Era } from './helpers/mcp-client.js';

const EVIL = '^([a-zA-Z0-9]+\\s?)+$';
const TOOL = `name: lookup
description: Look a name up.
enabled: true
sortOrder: 0
origin: manual
endpoint:
  method: GET
  path: /echo/lookup
classification: get
annotations:
  readOnlyHint: true
  destructiveHint: false
  idempotentHint: true
  openWorldHint: true
locations:
  name: { in: query, name: name }
  code: { in: query, name: code }
inputSchema:
  type: object
  required: [name]
  properties:
    name: { type: string, pattern: ${JSON.stringify(EVIL)} }
    code: { type: string, pattern: "^(a|a)*$" }
`;

let upstream: EchoUpstream;
const runtimes: Record<'hot' | 'sdk', RunningRuntime | undefined> = { hot: undefined, sdk: undefined };

beforeAll(async () => {
  upstream = await startEchoUpstream({ record: false });
  const loaded = loadFolder({
    'config.yaml': `schemaVersion: 1
server:
  id: redos
  name: ReDoS
  published: false
app:
  name: ReDoS
  provider: manual
source:
  kind: manual
auth:
  mode: none
  hasAuthSecret: false
apiBaseUrl: ${upstream.url}/api
requiredEnv: []
`,
    'Tools/lookup.yaml': TOOL,
  });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.describe()).join('\n'));
  const folder = loaded.folder;
  const boot = (fastPath: boolean) =>
    startRuntime({ env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0' }), folder, fastPath, logger: { log() {} } });
  [runtimes.hot, runtimes.sdk] = await Promise.all([boot(true), boot(false)]);
});
afterAll(async () => {
  await Promise.all([runtimes.hot?.close(), runtimes.sdk?.close()]);
  await upstream?.close();
});

type Content = { type: string; text?: string };

describe.each([
  ['hot', 'modern'],
  ['hot', 'legacy'],
  ['sdk', 'modern'],
  ['sdk', 'legacy'],
] as const)('%s path, %s client', (path, era: Era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connectClient(runtimes[path]!.url, `redos-${path}-${era}`, era);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('refuses a 31-character argument that fails the super-linear pattern, with /healthz answering meanwhile', async () => {
    const runtime = runtimes[path]!;
    const served = runtime.hotPathServed();
    const calls = [`${'a'.repeat(30)}!`, `${'a1'.repeat(20)} !`].map((name) =>
      client.callTool({ name: 'lookup', arguments: { name, code: `${'a'.repeat(40)}b` } }),
    );
    const health = fetch(new URL('/healthz', runtime.url)).then((r) => r.status);
    const [results, status] = await Promise.all([Promise.all(calls), health]);
    expect(status).toBe(200);
    for (const result of results) {
      expect(result.isError).toBe(true);
      const text = (result.content as Content[])[0]?.text ?? '';
      expect(text).toMatch(/\/name must match pattern/);
      expect(text).toMatch(/\/code must match pattern/);
    }
    // A matching argument still goes through to the upstream.
    const ok = await client.callTool({ name: 'lookup', arguments: { name: 'hello world' } });
    expect(ok.isError).toBeFalsy();
    // Each runtime served the calls on the path this case names.
    if (path === 'hot') expect(runtime.hotPathServed()).toBeGreaterThan(served);
    else expect(runtime.hotPathServed()).toBe(0);
  }, 20_000);
});
