/**
 * The end of the MCP routes: the hot path (runtime/fast-path.ts) when it takes the request,
 * else the SDK, a 2025-era request to LegacySessions and a 2026 one to the stateless handler.
 */
import type { AsyncLocalStorage } from 'node:async_hooks';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import type { Handler } from 'hono';
import type { FastPath } from '../fast-path.js';
import type { LegacySessions } from '../legacy-sessions.js';
import type { CallContext } from '../tool-call.js';
import type { McpEnv } from './mcp-env.js';

/** The SDK's stateless handler for 2026-era requests (createMcpHandler). */
export interface ModernHandler {
  fetch(request: Request, options?: { parsedBody?: unknown }): Promise<Response>;
}

export interface ServeMcpOptions {
  fast: FastPath | undefined;
  sessions: LegacySessions;
  modern: ModernHandler;
  /** Calls served by the SDK (not the hot path) find their request's context here. */
  requestContext: AsyncLocalStorage<CallContext>;
  /** fastPath: false: the path as it was before the hot path, answers re-read (benchmarks). */
  bufferAnswers: boolean;
}

function isModernHeader(request: Request): boolean {
  const version = request.headers.get('mcp-protocol-version');
  return version !== null && version >= '2026-';
}

/**
 * The pre-hot-path answer, kept only for `fastPath: false` so the benchmark's "before" is the
 * old path as it was: a JSON answer is read whole and rebuilt as a string body.
 */
async function bufferJson(response: Response): Promise<Response> {
  const json =
    response.body !== null && (response.headers.get('content-type') ?? '').startsWith('application/json');
  if (!json) return response;
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  return new Response(await response.text(), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

export function serveMcp(options: ServeMcpOptions): Handler<McpEnv> {
  const { fast, sessions, modern } = options;
  const serveSdk = async (
    forward: Request,
    parsedBody: unknown,
    claim: boolean,
    pathId: string | undefined,
    /** Who opens a session, as session caps count it (SVC_TRUST_PROXY). */
    client: string,
  ): Promise<Response> => {
    const legacy = claim
      ? false
      : forward.headers.get('mcp-session-id') && !isModernHeader(forward)
        ? true
        : parsedBody !== undefined
          ? await isLegacyRequest(forward, parsedBody)
          : await isLegacyRequest(forward);
    const response = legacy
      ? await sessions.handle(forward, pathId ?? '', parsedBody, client)
      : await modern.fetch(forward, parsedBody !== undefined ? { parsedBody } : undefined);
    return options.bufferAnswers ? bufferJson(response) : response;
  };
  return function serveMcp(c) {
    const forward = c.get('forward');
    const parsedBody = c.get('parsedBody');
    const pathId = c.get('pathId');
    const context = c.get('context');
    const hot =
      parsedBody !== undefined
        ? fast?.serve(forward, parsedBody, pathId ?? '', context, c.get('watchClient'))
        : undefined;
    if (hot) return hot;
    return options.requestContext.run(context, () =>
      serveSdk(forward, parsedBody, c.get('claim'), pathId, c.get('client')),
    );
  };
}
