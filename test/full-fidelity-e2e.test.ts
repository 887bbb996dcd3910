/**
 * Full-fidelity tools end to end: `svc init` of a document modelled on Twilio's (HTTP Basic,
 * an optional form body that requires `To`, a multipart upload, HTML descriptions), `svc
 * validate` reporting tools/list bytes, then the runtime on loopback driven by the MCP SDK's
 * own client against a real upstream that records what it receives.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import { type EchoUpstream, startEchoUpstream } from '../runtime/testing/index.js';
import { connectClient } from './helpers/mcp-client.js';
import { svc } from './helpers/run-cli.js';

const FIXTURE = path.join(import.meta.dirname, '..', 'fixtures', 'fidelity', 'messages-3.0.json');
const USER = 'AC0123456789abcdef0123456789abcdef';
const SECRET = 'tw-secret-7c1d9e0f3b2a';
const LEAKY = `AC${'f'.repeat(32)}`;
type Content = { type: string; text?: string };

let root: string;
let upstream: EchoUpstream;
let runtime: RunningRuntime;
let client: Client;
let dir: string;

const text = (result: { content?: unknown }) =>
  ((result.content ?? []) as Content[]).map((c) => c.text ?? '').join('');

async function enable(tool: string): Promise<void> {
  const file = path.join(dir, 'Tools', `${tool}.yaml`);
  await writeFile(file, (await readFile(file, 'utf8')).replace(/^enabled: false$/m, 'enabled: true'));
}

async function allFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return Promise.all(
    entries.filter((e) => e.isFile()).map((e) => readFile(path.join(e.parentPath, e.name), 'utf8')),
  );
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'svc-fidelity-'));
  upstream = await startEchoUpstream({
    route: (req, res) => {
      // An upstream that echoes the request headers: the credential must not come back.
      const echo = req.url?.includes(LEAKY) ? { sid: 'SM2', headers: req.headers } : undefined;
      const body = JSON.stringify(echo ?? { sid: 'SM1', body: null, price: null, media: [], extra: 1 });
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(body);
      return true;
    },
  });
}, 30_000);

afterAll(async () => {
  await client?.close();
  await runtime?.close();
  await upstream?.close();
  await rm(root, { recursive: true, force: true });
});

describe('svc init', () => {
  it('warns when the document declares security schemes and the folder gets auth: none', async () => {
    const run = await svc(['init', 'plain', '--name', 'Messages', '--openapi', FIXTURE], { cwd: root });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'warning: the document declares security schemes (accountSid_authToken (http basic)) but this folder has auth: none; to send a credential, create the folder with `--auth basic`',
    );
  });

  it('creates a basic-auth folder without a warning, whole descriptions and the app name as heading', async () => {
    const run = await svc(
      [
        'init',
        'messages',
        '--name',
        'Messages',
        '--openapi',
        FIXTURE,
        '--auth',
        'basic',
        '--base-url',
        upstream.url,
      ],
      { cwd: root },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('warning');
    dir = path.join(root, 'messages');
    const config = await readFile(path.join(dir, 'config.yaml'), 'utf8');
    expect(config).toMatch(/mode: basic\n\s+hasAuthSecret: true/);
    expect(config).toMatch(/requiredEnv:\n\s+- SVC_UPSTREAM_SECRET\n\s+- SVC_UPSTREAM_USER/);
    const env = await readFile(path.join(dir, '.env.example'), 'utf8');
    expect(env).toMatch(/# REQUIRED \(auth basic\).*\nSVC_UPSTREAM_SECRET=\n/);
    expect(env).toMatch(
      /# REQUIRED \(auth basic\) unless SVC_UPSTREAM_SECRET is "user:password".*\nSVC_UPSTREAM_USER=\n/,
    );
    const readme = await readFile(path.join(dir, 'README.md'), 'utf8');
    expect(readme.startsWith('# Messages\n')).toBe(true);
    expect(readme).toContain('SVC_UPSTREAM_USER');
    const tool = await readFile(path.join(dir, 'Tools', 'CreateMessage.yaml'), 'utf8');
    expect(tool).toContain('`To` number receives it; **at least one** of `Body` or `MediaUrl` is needed.');
    expect(tool).not.toContain('<p>');
  });

  it('--compact shortens descriptions and is recorded for later imports', async () => {
    const run = await svc(
      ['init', 'short', '--name', 'Messages', '--openapi', FIXTURE, '--auth', 'basic', '--compact'],
      { cwd: root },
    );
    expect(run.code, run.stderr).toBe(0);
    const short = path.join(root, 'short');
    expect(await readFile(path.join(short, 'config.yaml'), 'utf8')).toMatch(/^compact: true$/m);
    const description = /The SID of the \[Account\][^\n]*/.exec(
      await readFile(path.join(short, 'Tools', 'CreateMessage.yaml'), 'utf8'),
    )?.[0];
    expect(description).toBe(
      'The SID of the [Account](https://docs.messages.example/account) creating the Message…',
    );
    // A plain re-import keeps them short; a tool can ask for it alone in a full folder.
    const again = await svc(['import', 'short'], { cwd: root });
    expect(again.code, again.stderr).toBe(0);
    expect(await readFile(path.join(short, 'Tools', 'CreateMessage.yaml'), 'utf8')).toContain(description);
    const file = path.join(root, 'plain', 'Tools', 'CreateMessage.yaml');
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace(/^enabled: false$/m, 'enabled: false\ncompact: true'),
    );
    expect((await svc(['import', 'plain'], { cwd: root })).code).toBe(0);
    const own = await readFile(file, 'utf8');
    expect(own).toMatch(/^compact: true$/m);
    expect(own).toContain(description);
    expect(await readFile(path.join(root, 'plain', 'Tools', 'UploadMedia.yaml'), 'utf8')).not.toMatch(
      /compact/,
    );
    // svc import --compact turns it on for the whole folder, in config.yaml.
    const plainConfig = path.join(root, 'plain', 'config.yaml');
    expect(await readFile(plainConfig, 'utf8')).not.toMatch(/^compact:/m);
    expect((await svc(['import', 'plain', '--compact'], { cwd: root })).code).toBe(0);
    expect(await readFile(plainConfig, 'utf8')).toMatch(/^compact: true$/m);
  });
});

describe('svc validate and the runtime', () => {
  beforeAll(async () => {
    await enable('CreateMessage');
    await enable('UploadMedia');
    runtime = await startRuntime({
      env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_USER: USER, SVC_UPSTREAM_SECRET: SECRET }),
      folderDir: dir,
    });
    client = await connectClient(runtime.url, 'fidelity-test');
  }, 30_000);

  it('reports the tools/list bytes of the enabled tools', async () => {
    const run = await svc(['validate', 'messages', '--json'], { cwd: root });
    expect(run.code, run.stderr).toBe(0);
    const { tools } = await client.listTools();
    const bytes = Buffer.byteLength(JSON.stringify({ tools }));
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, tools: 2, toolsListBytes: bytes });
    const human = await svc(['validate', 'messages'], { cwd: root });
    expect(human.stdout).toContain(
      `tools/list: ${(bytes / 1024).toFixed(1)} KiB (${bytes} bytes) for the 2 enabled tools`,
    );
  });

  it("advertises the app's name as the server title", () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'messages', title: 'Messages' });
  });

  it('lists the optional body with its required To, and the upload as base64', async () => {
    const { tools } = await client.listTools();
    const create = tools.find((t) => t.name === 'CreateMessage')!;
    const properties = create.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(create.inputSchema.required).toEqual(['AccountSid']);
    expect(properties.body).toMatchObject({ type: 'object', required: ['To'] });
    // The declared output schema, advertised beside the marker of an answer in another shape.
    expect(create.outputSchema?.$defs).toMatchObject({
      declaredOutput: {
        properties: { price: { type: ['object', 'null'], properties: { amount: { type: 'string' } } } },
      },
    });
    const upload = tools.find((t) => t.name === 'UploadMedia')!;
    expect((upload.inputSchema.properties as Record<string, unknown>).file).toMatchObject({
      format: 'binary',
      contentEncoding: 'base64',
    });
  });

  it('calls upstream with Authorization: Basic and refuses a body without To', async () => {
    const before = upstream.requests.length;
    const missing = await client.callTool({
      name: 'CreateMessage',
      arguments: { AccountSid: USER, body: { Body: 'hello' } },
    });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/\/body must have required property 'To'/);
    expect(upstream.requests.length).toBe(before);
    const sent = await client.callTool({
      name: 'CreateMessage',
      arguments: { AccountSid: USER, body: { To: '+15550001', Body: 'hello' } },
    });
    expect(sent.isError, text(sent)).toBeFalsy();
    expect(sent.structuredContent).toMatchObject({ sid: 'SM1' });
    const seen = upstream.requests.at(-1)!;
    expect(seen.headers.authorization).toBe(`Basic ${Buffer.from(`${USER}:${SECRET}`).toString('base64')}`);
    expect(seen.body).toBe('To=%2B15550001&Body=hello');
  });

  it('sends a base64 file as its bytes and refuses text that is not base64, naming the argument', async () => {
    const before = upstream.requests.length;
    const bad = await client.callTool({
      name: 'UploadMedia',
      arguments: { AccountSid: USER, file: 'this is plain text, not base64!' },
    });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('argument "file" must be base64-encoded bytes (contentEncoding: base64)');
    expect(upstream.requests.length).toBe(before);
    const good = await client.callTool({
      name: 'UploadMedia',
      arguments: { AccountSid: USER, file: Buffer.from('GIF89a-bytes').toString('base64'), label: 'x' },
    });
    expect(good.isError, text(good)).toBeFalsy();
    expect(upstream.requests.at(-1)!.body).toContain('GIF89a-bytes');
  });

  it('redacts the Basic credential an upstream echoes back', async () => {
    const result = await client.callTool({
      name: 'CreateMessage',
      arguments: { AccountSid: LEAKY, body: { To: '+15550001' } },
    });
    const basic = Buffer.from(`${USER}:${SECRET}`).toString('base64');
    expect(upstream.requests.at(-1)!.headers.authorization).toBe(`Basic ${basic}`);
    const answer = JSON.stringify(result);
    expect(answer).toContain('[REDACTED]');
    expect(answer).not.toContain(basic.replace(/=+$/, ''));
  });

  it('refuses to boot basic auth without a user name', async () => {
    await expect(
      startRuntime({
        env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_SECRET: SECRET }),
        folderDir: dir,
      }),
    ).rejects.toMatchObject({ code: 'CONFIG_MISSING_ENV', place: { field: 'SVC_UPSTREAM_USER' } });
  });

  it('writes the credential nowhere in the folder', async () => {
    const basic = Buffer.from(`${USER}:${SECRET}`).toString('base64');
    for (const content of await allFiles(dir)) {
      expect(content).not.toContain(SECRET);
      expect(content).not.toContain(basic);
    }
  });
});
