/**
 * `npm run bench -- auth`: what inbound authorization adds per tool call (issue 22). The same
 * 2026-07-28 tools/call on the hot path, against one folder served three ways — MCP_AUTH=none,
 * MCP_AUTH=bearer (SHA-256 of a static token) and user_oauth (svc's sealed token: JWE
 * decryption, resource check, the user's upstream token set on the call) — in interleaved
 * rounds, plus the verification step alone, in process.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { verifyBearerToken } from '@modelcontextprotocol/server';
import { stringify } from 'yaml';
import { staticTokenVerifier } from '../runtime/auth/inbound-gate.js';
import { createSealer } from '../runtime/auth/seal.js';
import { memoryLogger, parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import { startEchoUpstream } from '../runtime/testing/index.js';
import { writeBenchFolder } from './runtime/bench-folder.js';

const KEY = Buffer.alloc(32, 0x42);
const STATIC_TOKEN = 'bench-static-token-0123456789abcdef';
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function post(agent: Agent, url: URL, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface Variant {
  name: string;
  runtime: RunningRuntime;
  authorization?: string;
  samples: number[];
}

async function callOnce(agent: Agent, v: Variant, seq: number): Promise<number> {
  const started = performance.now();
  const status = await post(
    agent,
    new URL(v.runtime.url),
    {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
      ...(v.authorization ? { authorization: v.authorization } : {}),
    },
    JSON.stringify({
      jsonrpc: '2.0',
      id: seq,
      method: 'tools/call',
      params: { name: 'echo', arguments: { id: `i${seq}` }, _meta: META },
    }),
  );
  if (status !== 200) throw new Error(`${v.name}: HTTP ${status}`);
  return performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timeVerify(label: string, run: () => Promise<unknown>, n: number): Promise<number> {
  for (let i = 0; i < 500; i++) await run();
  const started = performance.now();
  for (let i = 0; i < n; i++) await run();
  const us = ((performance.now() - started) / n) * 1000;
  console.log(`| ${label} | ${us.toFixed(1)} µs |`);
  return us;
}

export async function runAuthBench(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const upstream = await startEchoUpstream({ record: false });
  const dir = await writeBenchFolder(`${upstream.url}/api`, 1);
  const oauthDir = await writeBenchFolder(`${upstream.url}/api`, 1);
  await writeFile(
    join(oauthDir, 'config.yaml'),
    stringify({
      schemaVersion: 1,
      server: { id: 'bench', name: 'Bench', published: false },
      app: { name: 'Bench', provider: 'manual' },
      source: { kind: 'manual' },
      auth: { mode: 'user_oauth', hasAuthSecret: false },
      apiBaseUrl: `${upstream.url}/api`,
      requiredEnv: [],
      oauth: {
        authorizeUrl: 'https://idp.bench.test/a',
        tokenUrl: 'https://idp.bench.test/t',
        scopes: ['read'],
      },
    }),
  );
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const sealer = createSealer(new Uint8Array(KEY), publicUrl, Date.now);
  const svcToken = await sealer.seal(
    'at',
    { cid: 'bench-client', aud: `${publicUrl}/mcp`, ut: 'upstream-user-token-abcdef0123456789' },
    3600,
  );
  const logger = memoryLogger();
  const variants: Variant[] = [
    {
      name: 'MCP_AUTH=none',
      runtime: await startRuntime({
        env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0' }),
        folderDir: dir,
        logger,
      }),
      samples: [],
    },
    {
      name: 'MCP_AUTH=bearer',
      runtime: await startRuntime({
        env: parseRuntimeEnv({
          MCP_RUNTIME_PORT: '0',
          MCP_AUTH: 'bearer',
          SVC_MCP_TOKENS: createHash('sha256').update(STATIC_TOKEN).digest('hex'),
        }),
        folderDir: dir,
        logger,
      }),
      authorization: `Bearer ${STATIC_TOKEN}`,
      samples: [],
    },
    {
      name: 'user_oauth (sealed token)',
      runtime: await startRuntime({
        env: parseRuntimeEnv({
          MCP_RUNTIME_PORT: String(port),
          MCP_RUNTIME_PUBLIC_URL: publicUrl,
          SVC_OAUTH_KEY: KEY.toString('base64'),
          SVC_OAUTH_CLIENT_ID: 'bench',
        }),
        folderDir: oauthDir,
        logger,
      }),
      authorization: `Bearer ${svcToken}`,
      samples: [],
    },
  ];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const perRound = quick ? 300 : 2000;
  const rounds = quick ? 1 : 3;
  let seq = 0;
  try {
    for (const v of variants) for (let i = 0; i < 200; i++) await callOnce(agent, v, seq++);
    for (let r = 0; r < rounds; r++) {
      for (const v of variants)
        for (let i = 0; i < perRound; i++) v.samples.push(await callOnce(agent, v, seq++));
    }
    const base = median(variants[0]!.samples);
    const bearer = median(variants[1]!.samples);
    console.log(
      '| tools/call, 1 client, 2026-07-28 hot path | p50 ms | added over none | added over bearer |',
    );
    console.log('|---|---|---|---|');
    for (const v of variants) {
      const p50 = median(v.samples);
      console.log(
        `| ${v.name} | ${p50.toFixed(3)} | ${((p50 - base) * 1000).toFixed(0)} µs | ${((p50 - bearer) * 1000).toFixed(0)} µs |`,
      );
    }
    console.log('\n| verification alone (in process) | per call |');
    console.log('|---|---|');
    const n = quick ? 2000 : 20_000;
    const staticVerifier = staticTokenVerifier(
      [createHash('sha256').update(STATIC_TOKEN).digest('hex')],
      Date.now,
    );
    await timeVerify(
      'bearer: SHA-256 + constant-time compare',
      () => verifyBearerToken(`Bearer ${STATIC_TOKEN}`, { verifier: staticVerifier }),
      n,
    );
    const resource = new URL(`${publicUrl}/mcp`);
    await timeVerify(
      'user_oauth: JWE (dir, A256GCM) decrypt + claims + resource check',
      () =>
        verifyBearerToken(`Bearer ${svcToken}`, {
          expectedResource: resource,
          verifier: {
            async verifyAccessToken(token) {
              const claims = await sealer.open('at', token);
              if (!claims) throw new Error('refused');
              return {
                token: '',
                clientId: String(claims.cid),
                scopes: [],
                expiresAt: Number(claims.exp),
                resource: new URL(String(claims.aud)),
              };
            },
          },
        }),
      n,
    );
  } finally {
    agent.destroy();
    for (const v of variants) await v.runtime.close();
    await upstream.close();
  }
}
