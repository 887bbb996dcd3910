import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { validate } from './validate.js';

const tool = {
  name: 'getPet',
  description: 'Get a pet',
  enabled: false,
  sortOrder: 0,
  origin: 'imported',
  endpoint: { method: 'GET', path: '/pets/{id}' },
  classification: 'get',
  inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  locations: { id: { in: 'path', name: 'id' } },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
};

describe('contract schemas', () => {
  it('accepts a valid tool file', () => {
    expect(validate('tool', tool)).toEqual({ ok: true, value: tool });
  });

  it('counts only own keys: an inherited `enabled` is missing, not true', () => {
    const { enabled: _enabled, ...rest } = tool;
    const inherits = Object.assign(Object.create({ enabled: true }) as object, rest);
    const result = validate('tool', inherits);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.message).join('\n')).toMatch(/enabled/);
  });

  it('names the field and the unknown key', () => {
    const result = validate('tool', { ...tool, enabled: 'yes', colour: 'red' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toContainEqual({ field: '', message: 'has unknown key "colour"' });
    expect(result.errors).toContainEqual({ field: '/enabled', message: 'must be boolean' });
  });

  it('refuses a tool input schema whose root is not an object', () => {
    const result = validate('tool', { ...tool, inputSchema: { allOf: [{ type: 'object' }] } });
    expect(result.ok).toBe(false);
  });

  it('requires the api key placement exactly in api_key mode', () => {
    const config = {
      schemaVersion: 1,
      server: { id: 'crm', name: 'Default', published: false },
      app: { name: 'CRM', provider: 'manual' },
      source: { kind: 'manual' },
      auth: { mode: 'api_key', hasAuthSecret: true },
      apiBaseUrl: 'https://crm.example.test/api',
      requiredEnv: ['SVC_UPSTREAM_SECRET'],
    };
    expect(validate('config', config).ok).toBe(false);
    expect(
      validate('config', { ...config, auth: { ...config.auth, apiKey: { in: 'header', name: 'X-API-Key' } } })
        .ok,
    ).toBe(true);
  });

  it('accepts a diff block of rule levels in config.yaml, and only known levels', () => {
    const config = {
      schemaVersion: 1,
      server: { id: 'crm', name: 'Default', published: false },
      app: { name: 'CRM', provider: 'manual' },
      source: { kind: 'manual' },
      auth: { mode: 'none', hasAuthSecret: false },
      apiBaseUrl: 'https://crm.example.test/api',
      requiredEnv: [],
    };
    const diff = {
      rules: { 'response-property-enum-value-added': 'warning', 'endpoint-removed': 'off' },
      sunsetGraceDays: 30,
    };
    expect(validate('config', { ...config, diff }).ok).toBe(true);
    expect(validate('config', { ...config, diff: { rules: { 'endpoint-removed': 'error' } } }).ok).toBe(
      false,
    );
    expect(validate('config', { ...config, diff: { sunsetGraceDays: -1 } }).ok).toBe(false);
  });

  // The contract validator skips this check at every start (validateSchema: false); here it runs once.
  it('every contract schema passes the JSON Schema 2020-12 meta-schema', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
    const files = readdirSync('schemas').filter((f) => f.endsWith('.schema.json'));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const schema = JSON.parse(readFileSync(`schemas/${file}`, 'utf8')) as object;
      expect({ file, valid: ajv.validateSchema(schema), errors: ajv.errors ?? null }).toEqual({
        file,
        valid: true,
        errors: null,
      });
    }
  });

  it('keeps schemas/types.ts in step with the schemas', () => {
    expect(() =>
      execFileSync(process.execPath, ['scripts/generate-schema-types.mjs', '--check']),
    ).not.toThrow();
  });
});
