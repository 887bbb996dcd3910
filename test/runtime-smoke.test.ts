import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRuntimeEnv, type RunningRuntime, memoryLogger, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import { connectClient, type Era } from './helpers/mcp-client.js';

const SECRET = 'sk-test-0123456789abcdef';
let upstream: EchoUpstream;
let folder: TempFolder;
let runtime: RunningRuntime;
const logger = memoryLogger();

beforeAll(async () => {
  upstream = await startEchoUpstream();
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`);
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

const connect = (era: Era) => connectClient(runtime.url, `test-${era}`, era);

describe('smoke', () => {
  for (const era of ['modern', 'legacy'] as const) {
    it(`${era}: lists and calls`, async () => {
      const client = await connect(era);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('echo_get');
      const result = await client.callTool({
        name: 'echo_get',
        arguments: { id: 'a b/c', tags: ['x', 'y'] },
      });
      const text = (result.content as { type: string; text: string }[])[0]!.text;
      expect(JSON.parse(text).path).toBe('/api/echo/items/a%20b%2Fc');
      expect(upstream.requests.at(-1)?.headers['x-api-key']).toBe(SECRET);
      await client.close();
    });
  }
});
