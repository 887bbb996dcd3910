/**
 * structuredContent goes out only when it matches the tool's outputSchema. The official MCP
 * client validates it and throws on a mismatch (or on its absence), leaving the agent with
 * nothing; the runtime must instead hand over the text as a success (issue 17: an upstream 2xx
 * is no error), with the marker its advertised schema allows, and log why. Real upstream on
 * 127.0.0.1, startRuntime, the SDK's own client in both protocol eras.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFolder } from '../folder/index.js';
import { memoryLogger, parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import { type EchoUpstream, startEchoUpstream } from '../runtime/testing/index.js';
import { connectClient } from './helpers/mcp-client.js';

const BODIES: Record<string, { type: string; body: string }> = {
  good: { type: 'application/json', body: '{"count":3,"name":"ok"}' },
  wrongType: { type: 'application/json', body: '{"count":"three","name":"ok"}' },
  missing: { type: 'application/json', body: '{"name":"ok"}' },
  array: { type: 'application/json', body: '[1,2,3]' },
  text: { type: 'text/plain', body: 'just words' },
  deep: { type: 'application/json', body: `{"count":1,"deep":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}` },
};

let upstream: EchoUpstream;
let runtime: RunningRuntime;
const logger = memoryLogger();

const TOOL = `name: shaped
description: Answer with a body of the chosen shape.
enabled: true
sortOrder: 0
origin: manual
endpoint:
  method: GET
  path: /shape
classification: action
annotations:
  readOnlyHint: true
  destructiveHint: false
  idempotentHint: true
  openWorldHint: true
locations:
  shape: { in: query, name: shape }
inputSchema:
  type: object
  required: [shape]
  properties:
    shape: { type: string }
outputSchema:
  type: object
  required: [count]
  properties:
    count: { type: integer }
    name: { type: string }
`;

beforeAll(async () => {
  upstream = await startEchoUpstream({
    route: (_req, res, _body, url) => {
      if (url.pathname !== '/api/shape') return false;
      const answer = BODIES[url.searchParams.get('shape') ?? ''] ?? BODIES.good!;
      res.writeHead(200, { 'content-type': answer.type });
      res.end(answer.body);
      return true;
    },
  });
  const loaded = loadFolder({
    'config.yaml': `schemaVersion: 1
server:
  id: shape-api
  name: Shape API
  published: false
app:
  name: Shape
  provider: manual
source:
  kind: manual
auth:
  mode: none
  hasAuthSecret: false
apiBaseUrl: ${upstream.url}/api
requiredEnv: []
`,
    'Tools/shaped.yaml': TOOL,
  });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.describe()).join('\n'));
  runtime = await startRuntime({
    env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0' }),
    folder: loaded.folder,
    logger,
  });
});
afterAll(async () => {
  await runtime?.close();
  await upstream?.close();
});

type Content = { type: string; text?: string };

describe.each(['modern', 'legacy'] as const)('%s official client', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connectClient(runtime.url, `shape-${era}`, era);
    // The client learns the output schemas from tools/list, then validates every call against them.
    await client.listTools();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('answers an upstream JSON nested 5,000 levels deep with an isError result, not HTTP 500', async () => {
    const result = await client.callTool({ name: 'shaped', arguments: { shape: 'deep' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const texts = (result.content as Content[]).map((c) => c.text ?? '');
    expect(texts[0]).toMatch(/nested more than 256 levels deep/);
    expect(texts[1]).toBe(BODIES.deep!.body);
  });

  it('passes structuredContent that matches the schema', async () => {
    const result = await client.callTool({ name: 'shaped', arguments: { shape: 'good' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ count: 3, name: 'ok' });
  });

  it('advertises the declared schema, or the marker of an answer in another shape', async () => {
    const { tools } = await client.listTools();
    const schema = tools.find((t) => t.name === 'shaped')!.outputSchema as Record<string, unknown>;
    expect(schema).toMatchObject({
      type: 'object',
      anyOf: [{ $ref: '#/$defs/declaredOutput' }, { properties: { unmatched: { const: true } } }],
      $defs: { declaredOutput: { required: ['count'], properties: { count: { type: 'integer' } } } },
    });
  });

  // Issue 17: a 2xx stays a success (a model told "error" may repeat a call that is not idempotent).
  it.each(['wrongType', 'missing', 'array', 'text'])(
    'hands over the text of a %s answer as a success, without making the client throw',
    async (shape) => {
      const result = await client.callTool({ name: 'shaped', arguments: { shape } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ unmatched: true });
      const texts = (result.content as Content[]).map((c) => c.text ?? '');
      expect(texts[0]).toMatch(/does not match this tool's output schema/);
      expect(texts.slice(1).join('')).toBe(BODIES[shape]!.body);
      const logged = logger.records.filter((r) => r.event === 'structured_content_dropped');
      expect(logged.at(-1)).toMatchObject({ tool: 'shaped', level: 'warn' });
      expect(JSON.stringify(logged.at(-1))).not.toContain('three');
    },
  );
});
