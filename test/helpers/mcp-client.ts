/**
 * The MCP SDK's own client as the peer, connected over Streamable HTTP. 'modern' pins protocol
 * 2026-07-28; 'legacy' negotiates as the SDK does by default, as hosts of the earlier revisions do.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export type Era = 'modern' | 'legacy';

export async function connectClient(url: string, name: string, era: Era = 'legacy'): Promise<Client> {
  const client = new Client(
    { name, version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}
