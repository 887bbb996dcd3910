/**
 * Search mode end to end (contracts/discovery.md): the runtime booted from a folder on disk with
 * `discovery: search`, the MCP SDK's own client in both eras, a real loopback upstream. Only
 * served tools are found or called; call_tool gives what a direct call gives; a write waits for
 * the person's yes (answered yes, no, or by a client that cannot ask), and the upstream is
 * never called without it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger, parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';

const SECRET = 'sk-discovery-7c1e9a4b2d6f3e80';
type Era = 'modern' | 'legacy';
type Answer = 'yes' | 'no' | 'cannot';
type Content = { type: string; text?: string };

let upstream: EchoUpstream;
let folder: TempFolder;
let runtime: RunningRuntime;
const logger = memoryLogger();

async function editTool(file: string, edit: (yaml: string) => string): Promise<void> {
  const path = join(folder.dir, 'Tools', file);
  await writeFile(path, edit(await readFile(path, 'utf8')));
}

beforeAll(async () => {
  upstream = await startEchoUpstream();
  folder = await copyFixtureFolder(
    'fixtures/runtime/basic',
    `${upstream.url}/api`,
    (c) => `${c}discovery: search\n`,
  );
  // echo_get becomes a read: it runs through call_tool without asking. status is pinned.
  await editTool('echo_get.yaml', (y) => y.replace('readOnlyHint: false', 'readOnlyHint: true'));
  await editTool('status.yaml', (y) => y.replace('enabled: true', 'enabled: true\npinned: true'));
  runtime = await startRuntime({
    env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_SECRET: SECRET }),
    folderDir: folder.dir,
    logger,
  });
});
afterAll(async () => {
  await runtime?.close();
  await upstream?.close();
  await folder?.remove();
});

/** A client in the given era whose person answers every confirmation with `answer`. */
async function connect(era: Era, answer: Answer): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const client = new Client(
    { name: `discovery-${era}-${answer}`, version: '1.0.0' },
    {
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
      capabilities: answer === 'cannot' ? {} : { elicitation: { form: {} } },
    },
  );
  if (answer !== 'cannot') {
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(String((request.params as { message?: string }).message));
      return answer === 'yes' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(runtime.url)));
  return { client, asked };
}

const text = (r: { content?: unknown }) => ((r.content ?? []) as Content[]).map((c) => c.text ?? '').join('');

describe.each(['modern', 'legacy'] as const)('%s client', (era) => {
  let client: Client;
  let asked: string[];
  beforeAll(async () => {
    ({ client, asked } = await connect(era, 'yes'));
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists the meta-tools and the pinned tool only', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search_tools', 'call_tool', 'status']);
  });

  it('finds tools from plain words, never a disabled one', async () => {
    const found = await client.callTool({ name: 'search_tools', arguments: { query: 'echo a JSON body' } });
    expect(found.isError).toBeFalsy();
    const tools = (found.structuredContent as { tools: { name: string; inputSchema: unknown }[] }).tools;
    expect(tools[0]?.name).toBe('echo_json');
    expect(tools[0]?.inputSchema).toMatchObject({ type: 'object' });
    expect(text(found)).toContain('echo_json');
    const hidden = await client.callTool({
      name: 'search_tools',
      arguments: { query: 'disabled tool never called delete everything' },
    });
    expect(JSON.stringify(hidden)).not.toContain('hidden_delete');
  });

  it('refuses to call a disabled or unknown tool through call_tool, and a hidden tool by name', async () => {
    const before = upstream.requests.length;
    const disabled = await client.callTool({ name: 'call_tool', arguments: { name: 'hidden_delete' } });
    expect(disabled.isError).toBe(true);
    expect(text(disabled)).toContain('No tool named "hidden_delete"');
    const unknown = await client.callTool({ name: 'call_tool', arguments: { name: 'nope' } });
    expect(unknown.isError).toBe(true);
    // A served but unpinned tool is not callable by name: only through call_tool.
    await expect(client.callTool({ name: 'echo_json', arguments: { name: 'x' } })).rejects.toThrow(
      /Unknown tool/,
    );
    expect(upstream.requests.length).toBe(before);
  });

  it('runs a read without asking, with the same validation as a direct call', async () => {
    const before = asked.length;
    const ok = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'echo_get', arguments: { id: 'a1' } },
    });
    expect(ok.isError, text(ok)).toBeFalsy();
    expect(upstream.requests.at(-1)?.url).toContain('/api/echo/items/a1');
    const bad = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'echo_get', arguments: { id: 7 } },
    });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('Invalid arguments for tool echo_get');
    expect(asked.length).toBe(before);
  });

  it('runs a write once the person says yes, and redacts its answer', async () => {
    const before = upstream.requests.length;
    const result = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'echo_json', arguments: { name: 'widget', count: 2 } },
    });
    expect(result.isError, text(result)).toBeFalsy();
    expect(asked.at(-1)).toContain('echo_json (POST /echo/items)');
    expect(asked.at(-1)).toContain('"name":"widget"');
    expect(upstream.requests.length).toBe(before + 1);
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('calls the pinned tool directly', async () => {
    const result = await client.callTool({ name: 'status', arguments: { code: 200 } });
    expect(result.isError, text(result)).toBeFalsy();
  });
});

describe.each(['modern', 'legacy'] as const)('%s client whose person says no or cannot be asked', (era) => {
  it.each(['no', 'cannot'] as const)('answer %s: the upstream is never called', async (answer) => {
    const { client, asked } = await connect(era, answer);
    try {
      const before = upstream.requests.length;
      const result = await client.callTool({
        name: 'call_tool',
        arguments: { name: 'echo_json', arguments: { name: 'widget', count: 2 } },
      });
      expect(result.isError).toBe(true);
      if (answer === 'no') {
        expect(asked).toHaveLength(1);
        expect(text(result)).toContain('did not confirm echo_json');
      } else {
        expect(text(result)).toContain('pinned: true');
        expect(text(result)).toContain('discovery: all');
      }
      expect(upstream.requests.length).toBe(before);
    } finally {
      await client.close();
    }
  });
});

describe('a confirmation binds the exact call', () => {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
  };
  async function rawCall(args: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    const response = await fetch(runtime.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'call_tool',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'call_tool',
          arguments: { name: 'echo_json', arguments: args },
          _meta: meta,
          ...extra,
        },
      }),
    });
    const body = await response.text();
    const json = body.startsWith('{')
      ? JSON.parse(body)
      : JSON.parse(body.split('\ndata: ')[1]!.split('\n')[0]!);
    return json.result as Record<string, unknown>;
  }

  it('a yes given for one set of arguments does not run another', async () => {
    const before = upstream.requests.length;
    const first = await rawCall({ name: 'asked', count: 1 });
    expect(first.resultType).toBe('input_required');
    expect(typeof first.requestState).toBe('string');
    const yes = { confirm: { action: 'accept', content: { confirm: true } } };
    // The same yes and state, with other arguments: asked again, nothing sent upstream.
    const swapped = await rawCall(
      { name: 'other', count: 99 },
      { inputResponses: yes, requestState: first.requestState },
    );
    expect(swapped.resultType).toBe('input_required');
    // A forged state is refused outright.
    const state = String(first.requestState);
    const forged = `${state.slice(0, -4)}${state.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    await expect(
      rawCall({ name: 'asked', count: 1 }, { inputResponses: yes, requestState: forged }),
    ).resolves.toBeUndefined();
    expect(upstream.requests.length).toBe(before);
    // The yes with the arguments it was given for runs the call once.
    const run = await rawCall(
      { name: 'asked', count: 1 },
      { inputResponses: yes, requestState: first.requestState },
    );
    expect(run.isError, JSON.stringify(run)).toBeFalsy();
    expect(upstream.requests.length).toBe(before + 1);
    expect(upstream.requests.at(-1)?.body).toContain('"asked"');
  });
});
