/**
 * `svc serve <dir>` reads the folder's `.env` (what the folder's README tells users to fill in from
 * `.env.example`), a variable already set in the environment winning; without the credential it
 * says where it looked. The built CLI against a real upstream on loopback, an MCP client as peer.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import { ensureBuilt, runSvc, startSvc } from './helpers/built-cli.js';
import { connectClient } from './helpers/mcp-client.js';

let upstream: EchoUpstream;
let folder: TempFolder;

beforeAll(async () => {
  await ensureBuilt();
  upstream = await startEchoUpstream();
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`);
}, 180_000);
afterAll(async () => {
  await upstream?.close();
  await folder?.remove();
});

/** Serves the folder, calls echo_get once and returns the X-Api-Key the upstream received. */
async function keySent(env: Record<string, string> = {}): Promise<{ key: unknown; output: string }> {
  const served = await startSvc(['serve', folder.dir, '--port', '0'], { cwd: path.dirname(folder.dir), env });
  try {
    const client = await connectClient(served.url, 'serve-dotenv');
    try {
      upstream.requests.length = 0;
      await client.callTool({ name: 'echo_get', arguments: { id: '1' } });
      return { key: upstream.requests[0]?.headers['x-api-key'], output: served.output() };
    } finally {
      await client.close();
    }
  } finally {
    await served.stop();
  }
}

describe('svc serve and the folder .env', () => {
  it('without SVC_UPSTREAM_SECRET anywhere, says to set it in the environment or in the folder .env', async () => {
    const run = await runSvc(['serve', folder.dir, '--port', '0'], { cwd: folder.dir });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('SVC_UPSTREAM_SECRET is not set');
    expect(run.stderr).toContain(`in ${path.join(folder.dir, '.env')} (copy .env.example`);
  });

  it('reads the credential from the folder .env, and names (never prints) what it read', async () => {
    writeFileSync(
      path.join(folder.dir, '.env'),
      '# from .env.example\nSVC_UPSTREAM_SECRET="from-dotenv-7f3a"\n',
    );
    const { key, output } = await keySent();
    expect(key).toBe('from-dotenv-7f3a');
    expect(output).toMatch(/read \S*\.env \(SVC_UPSTREAM_SECRET\)/);
    expect(output).not.toContain('from-dotenv-7f3a');
  });

  it('a variable set in the environment wins over the same one in .env', async () => {
    const { key, output } = await keySent({ SVC_UPSTREAM_SECRET: 'from-environment-9c1d' });
    expect(key).toBe('from-environment-9c1d');
    expect(output).toMatch(/every variable in it is already set/);
  });
});
