/**
 * The hot path's tools/list answers (runtime/fast-path.ts): produced once per config version
 * and era by the SDK itself, through its own handlers, then replayed.
 */
import {
  createMcpHandler,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { LoadedConfig } from './loaded-config.js';
import { buildMcpServer } from './mcp-server.js';
import type { ToolCallDeps } from './tool-call.js';

export const MODERN_VERSION = '2026-07-28';
export const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const JSON_HEADERS = { 'content-type': 'application/json' };

export interface ListCache {
  /** The 2026 result (JSON) and the server identity the SDK's codec stamps on results. */
  modern(config: LoadedConfig): Promise<{ result: string; serverInfo: unknown }>;
  /** The 2025-era result (JSON). */
  legacy(config: LoadedConfig): Promise<string>;
}

/** The SDK's 2026 answer to tools/list, asked of a stateless handler built for this config. */
async function modernList(config: LoadedConfig, deps: ToolCallDeps) {
  const handler = createMcpHandler(() => buildMcpServer(config, deps), { legacy: 'reject' });
  try {
    const envelope = { [PROTOCOL_VERSION_META_KEY]: MODERN_VERSION, [CLIENT_CAPABILITIES_KEY]: {} };
    const response = await handler.fetch(
      new Request('http://svc.internal/mcp', {
        method: 'POST',
        headers: { ...JSON_HEADERS, 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list' },
      }),
      { parsedBody: { jsonrpc: '2.0', id: 0, method: 'tools/list', params: { _meta: envelope } } },
    );
    const message = (await response.json()) as { result: { _meta?: Record<string, unknown> } };
    return {
      result: JSON.stringify(message.result),
      serverInfo: message.result._meta?.[SERVER_INFO_META_KEY],
    };
  } finally {
    await handler.close();
  }
}

/** The SDK's 2025-era answer to tools/list, asked of a stateless transport. */
async function legacyList(config: LoadedConfig, deps: ToolCallDeps): Promise<string> {
  const server = buildMcpServer(config, deps);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(
      new Request('http://svc.internal/mcp', {
        method: 'POST',
        headers: { ...JSON_HEADERS, accept: 'application/json, text/event-stream' },
      }),
      { parsedBody: { jsonrpc: '2.0', id: 0, method: 'tools/list', params: {} } },
    );
    return JSON.stringify(((await response.json()) as { result: unknown }).result);
  } finally {
    await server.close();
  }
}

export function createListCache(deps: ToolCallDeps): ListCache {
  const lists = new WeakMap<
    LoadedConfig,
    { modern?: Promise<{ result: string; serverInfo: unknown }>; legacy?: Promise<string> }
  >();
  const entry = (config: LoadedConfig) => {
    let cached = lists.get(config);
    if (!cached) {
      cached = {};
      lists.set(config, cached);
    }
    return cached;
  };
  return {
    modern(config) {
      const cached = entry(config);
      cached.modern ??= modernList(config, deps);
      return cached.modern;
    },
    legacy(config) {
      const cached = entry(config);
      cached.legacy ??= legacyList(config, deps);
      return cached.legacy;
    },
  };
}
