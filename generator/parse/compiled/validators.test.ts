import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validate as v20 } from './openapi-2.0.js';
import { validate as v30 } from './openapi-3.0.js';
import { validate as v31 } from './openapi-3.1.js';

describe('precompiled OpenAPI validators', () => {
  it('match what the generator script would write now (not stale)', { timeout: 60_000 }, () => {
    const script = join(import.meta.dirname, 'generate-validators.mjs');
    expect(() => execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' })).not.toThrow();
  });

  it('accept a minimal document of their version and refuse a broken one', () => {
    const info = { title: 'T', version: '1' };
    expect(v20({ swagger: '2.0', info, paths: {} })).toBe(true);
    expect(v20({ swagger: '2.0', info, paths: {}, extra: 1 })).toBe(false);
    expect(v30({ openapi: '3.0.3', info, paths: {} })).toBe(true);
    expect(v30({ openapi: '3.0.3', info, paths: { '/x': { get: { responses: 5 } } } })).toBe(false);
    expect(v31({ openapi: '3.1.0', info, webhooks: {} })).toBe(true);
    expect(v31({ openapi: '3.1.0', info, paths: { '/x': { get: { parameters: [{ in: 'query' }] } } } })).toBe(
      false,
    );
  });
});
