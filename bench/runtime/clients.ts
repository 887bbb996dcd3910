/**
 * The two load generators of the runtime benchmark. Every call carries a unique id that comes
 * back in the upstream's echo, so each answer is checked to belong to its caller.
 * - raw: a cheap node:http JSON-RPC client (keep-alive agent, one socket per worker), so the
 *   figures are the server's and not a client library's;
 * - sdk: the official SDK v2 Client over StreamableHTTPClientTransport, one per worker, in the
 *   2026-07-28 (pinned) or 2025-11-25 (session) era — what real hosts run.
 */
import { Agent, request as httpRequest } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** One call by `worker`; true when the answer is this caller's own. */
export type Call = (worker: number, seq: number) => Promise<boolean>;

export interface Driver {
  call: Call;
  close(): Promise<void>;
}

/** What the raw client speaks to a target. */
export type RawKind = 'direct' | 'proxy' | 'modern' | 'legacy';

function uniqueId(worker: number, seq: number): string {
  return `w${worker}-s${seq}-${Math.random().toString(36).slice(2, 10)}`;
}

function echoedPath(text: string | undefined): string | undefined {
  try {
    return (JSON.parse(text ?? '') as { path?: string }).path;
  } catch {
    return undefined;
  }
}

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function rawRequest(
  agent: Agent,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC message of a Streamable HTTP answer: a JSON body or the last SSE data line. */
function rpcMessage(answer: RawAnswer): { id?: unknown; result?: { content?: { text?: string }[] } } {
  const type = String(answer.headers['content-type'] ?? '');
  if (type.includes('text/event-stream')) {
    const data = answer.text
      .split('\n')
      .filter((l) => l.startsWith('data: ') && l.length > 6)
      .at(-1);
    return data ? JSON.parse(data.slice(6)) : {};
  }
  return JSON.parse(answer.text);
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function openSession(agent: Agent, url: URL): Promise<string> {
  const init = await rawRequest(
    agent,
    url,
    'POST',
    MCP_HEADERS,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    }),
  );
  const session = init.headers['mcp-session-id'];
  if (typeof session !== 'string') throw new Error(`no session id (HTTP ${init.status})`);
  await rawRequest(
    agent,
    url,
    'POST',
    { ...MCP_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  );
  return session;
}

export async function rawDriver(kind: RawKind, target: string, concurrency: number): Promise<Driver> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const url = new URL(target);
  const close = async () => agent.destroy();
  if (kind === 'direct') {
    return {
      close,
      call: async (worker, seq) => {
        const id = uniqueId(worker, seq);
        const answer = await rawRequest(agent, new URL(`${target}/api/echo/r0/${id}`), 'GET', {});
        return echoedPath(answer.text) === `/api/echo/r0/${id}`;
      },
    };
  }
  const sessions =
    kind === 'legacy'
      ? await Promise.all(Array.from({ length: concurrency }, () => openSession(agent, url)))
      : [];
  return {
    close,
    call: async (worker, seq) => {
      const id = uniqueId(worker, seq);
      const rpcId = seq + 1_000_000 * (worker + 1);
      const headers: Record<string, string> =
        kind === 'legacy'
          ? { ...MCP_HEADERS, 'mcp-session-id': sessions[worker]!, 'mcp-protocol-version': '2025-11-25' }
          : {
              ...MCP_HEADERS,
              'mcp-protocol-version': '2026-07-28',
              'mcp-method': 'tools/call',
              'mcp-name': 'echo',
            };
      const params =
        kind === 'legacy'
          ? { name: 'echo', arguments: { id } }
          : { name: 'echo', arguments: { id }, _meta: MODERN_META };
      const answer = await rawRequest(
        agent,
        url,
        'POST',
        headers,
        JSON.stringify({ jsonrpc: '2.0', id: rpcId, method: 'tools/call', params }),
      );
      const message = rpcMessage(answer);
      return message.id === rpcId && echoedPath(message.result?.content?.[0]?.text) === `/api/echo/r0/${id}`;
    },
  };
}

export async function sdkDriver(
  era: 'modern' | 'legacy',
  target: string,
  concurrency: number,
): Promise<Driver> {
  const clients = await Promise.all(
    Array.from({ length: concurrency }, async (_, i) => {
      const client = new Client(
        { name: `bench-${i}`, version: '1' },
        era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(target)));
      return client;
    }),
  );
  return {
    close: async () => {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
    },
    call: async (worker, seq) => {
      const id = uniqueId(worker, seq);
      const result = await clients[worker]!.callTool({ name: 'echo', arguments: { id } });
      const text = (result.content as { text?: string }[] | undefined)?.[0]?.text;
      return echoedPath(text) === `/api/echo/r0/${id}`;
    },
  };
}
