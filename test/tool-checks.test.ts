/**
 * What `svc validate` accepts, `svc serve` serves, and the other way round. A tool whose
 * input schema has `type: strng`, `required: [ghost]` and a path variable without a location
 * used to pass validate and load under --watch, then every call failed blaming the caller.
 * Now validate names each problem, boot refuses the folder, --watch keeps the last good
 * config, and a stale tool is never served (validate warns). Real folders on disk, the CLI
 * in-process, startRuntime with the MCP SDK's client.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSvcError } from '../core/svc-error.js';
import { memoryLogger, parseRuntimeEnv, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import { connectClient } from './helpers/mcp-client.js';
import { svc } from './helpers/run-cli.js';

const BROKEN = `name: broken
description: A tool no call can succeed with.
enabled: true
sortOrder: 0
origin: manual
endpoint:
  method: GET
  path: /echo/items/{id}/{other}
classification: get
annotations:
  readOnlyHint: true
  destructiveHint: false
  idempotentHint: true
  openWorldHint: true
locations:
  id: { in: path, name: id }
inputSchema:
  type: object
  required: [id, ghost]
  properties:
    id: { type: strng }
`;

const SECRET = 'sk-tool-checks-1';
let upstream: EchoUpstream;
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  upstream = await startEchoUpstream();
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
  await upstream?.close();
});

async function folder(): Promise<TempFolder> {
  const f = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`);
  cleanup.push(() => f.remove());
  return f;
}

async function boot(dir: string, watch = false) {
  const logger = memoryLogger();
  const runtime = await startRuntime({
    env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_SECRET: SECRET }),
    folderDir: dir,
    logger,
    ...(watch ? { watch: true, watchDebounceMs: 50 } : {}),
  });
  cleanup.push(() => runtime.close());
  const client = await connectClient(runtime.url, 'checks', 'modern');
  cleanup.push(() => client.close());
  return { runtime, logger, client };
}

describe('a tool that cannot work', () => {
  it('svc validate names every problem, with file, field and line', async () => {
    const f = await folder();
    await writeFile(join(f.dir, 'Tools/broken.yaml'), BROKEN);
    const run = await svc(['validate', f.dir], { cwd: f.dir });
    expect(run.code).toBe(1);
    expect(run.stdout).not.toMatch(/is valid/);
    expect(run.stderr).toMatch(/Tools\/broken\.yaml:21 at \/inputSchema\/properties\/id\/type/);
    expect(run.stderr).toMatch(/strng/);
    expect(run.stderr).toMatch(/\{other\}/);
    const json = await svc(['validate', f.dir, '--json'], { cwd: f.dir });
    const report = JSON.parse(json.stdout) as {
      ok: boolean;
      errors: { place: { file: string; field: string } }[];
    };
    expect(report.ok).toBe(false);
    expect(report.errors.map((e) => `${e.place.file}#${e.place.field}`).sort()).toEqual([
      'Tools/broken.yaml#/endpoint/path',
      'Tools/broken.yaml#/inputSchema/properties/id/type',
    ]);
  });

  it('svc validate reports the ghost required name once the type is fixed', async () => {
    const f = await folder();
    await writeFile(join(f.dir, 'Tools/broken.yaml'), BROKEN.replace('strng', 'string'));
    const json = await svc(['validate', f.dir, '--json'], { cwd: f.dir });
    const report = JSON.parse(json.stdout) as { errors: { place: { field: string } }[] };
    expect(report.errors.map((e) => e.place.field).sort()).toEqual([
      '/endpoint/path',
      '/inputSchema/required/1',
    ]);
  });

  it('serve refuses the folder at boot, naming the file', async () => {
    const f = await folder();
    await writeFile(join(f.dir, 'Tools/broken.yaml'), BROKEN);
    let error: unknown;
    try {
      await boot(f.dir);
    } catch (e) {
      error = e;
    }
    expect(isSvcError(error)).toBe(true);
    expect(isSvcError(error) && error.code).toBe('FOLDER_INVALID');
    expect(isSvcError(error) && error.place.file).toBe('Tools/broken.yaml');
  });

  it('serve --watch keeps the last good config when such a tool appears', async () => {
    const f = await folder();
    const { runtime, logger, client } = await boot(f.dir, true);
    const version = runtime.store.version();
    await writeFile(join(f.dir, 'Tools/broken.yaml'), BROKEN);
    await expect
      .poll(() => logger.records.some((r) => r.event === 'config_reload_refused'), { timeout: 4000 })
      .toBe(true);
    expect(runtime.store.version()).toBe(version);
    const refused = logger.records.find((r) => r.event === 'config_reload_refused')!;
    expect(String(refused.message)).toContain('Tools/broken.yaml');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('broken');
    const result = await client.callTool({ name: 'echo_get', arguments: { id: '7' } });
    expect(result.isError).toBeFalsy();
    // Fixed, it is taken.
    await writeFile(
      join(f.dir, 'Tools/broken.yaml'),
      BROKEN.replace('strng', 'string').replace('[id, ghost]', '[id]').replace('/{other}', ''),
    );
    await expect.poll(() => runtime.store.version(), { timeout: 4000 }).toBe(version + 1);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('broken');
  });
});

describe('a stale tool', () => {
  it('is not served even when enabled, and validate warns naming it', async () => {
    const f = await folder();
    const file = join(f.dir, 'Tools/echo_get.yaml');
    await writeFile(file, `${await readFile(file, 'utf8')}stale: true\n`);
    const run = await svc(['validate', f.dir], { cwd: f.dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/warning: .*tool echo_get is stale.*not served even though it is enabled/);
    const json = JSON.parse((await svc(['validate', f.dir, '--json'], { cwd: f.dir })).stdout) as {
      warnings: { message: string }[];
    };
    expect(json.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/echo_get is stale/)]);

    const before = upstream.requests.length;
    const { client } = await boot(f.dir);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('echo_get');
    await expect(client.callTool({ name: 'echo_get', arguments: { id: '1' } })).rejects.toThrow(
      /Unknown tool/,
    );
    expect(upstream.requests.length).toBe(before);
  });
});
