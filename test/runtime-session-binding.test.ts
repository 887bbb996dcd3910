/**
 * A 2025-era session is bound to the person who opened it (MCP security best practices, session
 * hijacking: bind the session id to the user). With MCP_AUTH=bearer and two tokens, a session
 * opened with token A answers token B with the 404 of an unknown session — on the replica that
 * holds it (hot path and SDK path) and on a replica that would rebuild it from its portable id
 * (SVC_SESSION_SECRET) — and the upstream is never called for B. Token A keeps working everywhere.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger, parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';

const ALICE = 'mcp-token-alice-5c4b3a';
const BOB = 'mcp-token-bob-0f9e8d';
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const SESSION_SECRET = Buffer.alloc(32, 0x17).toString('base64');
const LEGACY = '2025-11-25';

let upstream: EchoUpstream;
let folder: TempFolder;
/** The replica that opens the sessions (hot path on). */
let first: RunningRuntime;
/** Another replica sharing the session secret, every request through the SDK (fastPath: false). */
let second: RunningRuntime;
const logger = memoryLogger();

beforeAll(async () => {
  upstream = await startEchoUpstream();
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`);
  const env = () =>
    parseRuntimeEnv({
      MCP_RUNTIME_PORT: '0',
      SVC_UPSTREAM_SECRET: 'sk-session-binding-test',
      MCP_AUTH: 'bearer',
      SVC_MCP_TOKENS: [ALICE, BOB].map(sha).join(','),
      SVC_SESSION_SECRET: SESSION_SECRET,
    });
  first = await startRuntime({ env: env(), folderDir: folder.dir, logger });
  second = await startRuntime({ env: env(), folderDir: folder.dir, logger, fastPath: false });
});
afterAll(async () => {
  await first?.close();
  await second?.close();
  await upstream?.close();
  await folder?.remove();
});

function post(url: string, token: string, body: unknown, sid?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      ...(sid ? { 'mcp-session-id': sid, 'mcp-protocol-version': LEGACY } : {}),
    },
    body: JSON.stringify(body),
  });
}

async function openSession(url: string, token: string): Promise<string> {
  const init = await post(url, token, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'binding', version: '1' } },
  });
  expect(init.status).toBe(200);
  await init.text();
  const sid = init.headers.get('mcp-session-id')!;
  expect(sid).toMatch(/^s1\./);
  const initialized = await post(url, token, { jsonrpc: '2.0', method: 'notifications/initialized' }, sid);
  expect(initialized.status).toBe(202);
  return sid;
}

let nextId = 1;
const call = (url: string, token: string, sid: string) =>
  post(
    url,
    token,
    {
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: { name: 'echo_get', arguments: { id: '7' } },
    },
    sid,
  );

describe('a 2025-era session belongs to who opened it', () => {
  it('answers the other token with 404 on the replica holding the session, and never calls the upstream for it', async () => {
    const sid = await openSession(first.url, ALICE);
    const mine = await call(first.url, ALICE, sid);
    expect(mine.status).toBe(200);
    expect(await mine.text()).toContain('"result"');
    const before = upstream.requests.length;
    const hijack = await call(first.url, BOB, sid);
    expect(hijack.status).toBe(404);
    expect(await hijack.json()).toMatchObject({ error: { code: -32001, message: 'Session not found' } });
    expect(upstream.requests.length).toBe(before);
    // The session is not ended by the attempt: its owner goes on.
    expect((await call(first.url, ALICE, sid)).status).toBe(200);
    expect(logger.records.some((r) => r.event === 'session_principal_mismatch')).toBe(true);
  });

  it('refuses to rebuild the session for the other token on another replica, and rebuilds it for its owner', async () => {
    const sid = await openSession(first.url, ALICE);
    const before = upstream.requests.length;
    expect((await call(second.url, BOB, sid)).status).toBe(404);
    expect(upstream.requests.length).toBe(before);
    const owner = await call(second.url, ALICE, sid);
    expect(owner.status).toBe(200);
    expect(await owner.text()).toContain('"result"');
    // Now held by the second replica too (the SDK path there): still not Bob's.
    expect((await call(second.url, BOB, sid)).status).toBe(404);
    expect((await call(second.url, ALICE, sid)).status).toBe(200);
  });

  it('a session Bob opens is his own: the binding is per token, not a lock-out', async () => {
    const sid = await openSession(first.url, BOB);
    expect((await call(first.url, BOB, sid)).status).toBe(200);
    expect((await call(first.url, ALICE, sid)).status).toBe(404);
  });
});

describe('the authenticated principal is the caller', () => {
  it('the execution log (and the per-caller limit) names the token, not the address', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-binding-log-'));
    const logFile = join(dir, 'calls.jsonl');
    const runtime = await startRuntime({
      env: parseRuntimeEnv({
        MCP_RUNTIME_PORT: '0',
        SVC_UPSTREAM_SECRET: 'sk-session-binding-test',
        MCP_AUTH: 'bearer',
        SVC_MCP_TOKENS: [ALICE, BOB].map(sha).join(','),
        SVC_SESSION_SECRET: SESSION_SECRET,
        SVC_EXECUTION_LOG: logFile,
      }),
      folderDir: folder.dir,
      logger,
    });
    try {
      for (const token of [ALICE, BOB]) {
        const sid = await openSession(runtime.url, token);
        expect((await call(runtime.url, token, sid)).status).toBe(200);
      }
    } finally {
      await runtime.close();
    }
    const callers = (await readFile(logFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { caller: string }).caller);
    expect(callers).toEqual(['sub:bearer:0', 'sub:bearer:1']);
    await rm(dir, { recursive: true, force: true });
  });
});
