/**
 * The Dockerfile, the exported folder's docker-compose.yml and .env.example must agree with
 * the runtime: same folder path, mode, port variable and health endpoint; every variable the
 * folder tells users to set is one the runtime reads; an .env copied from .env.example with
 * every value left empty boots with the defaults. (No Docker engine here: the image itself is
 * not built by the tests; test/runtime-main.test.ts runs the same bundled entry.)
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envVariables, RUNTIME_IMAGE, renderCompose } from '../generator/render/index.js';
import { parseRuntimeEnv, RUNTIME_ENV_VARIABLES } from '../runtime/index.js';
import type { SvcConfig } from '../schemas/types.js';

const dockerfile = readFileSync('Dockerfile', 'utf8');
const config: SvcConfig = {
  schemaVersion: 1,
  server: { id: 'pets', name: 'Pets', published: false },
  app: { name: 'Pets', provider: 'openapi' },
  source: { kind: 'openapi', location: 'openapi.json' },
  auth: { mode: 'bearer', hasAuthSecret: true },
  apiBaseUrl: 'https://api.example.test',
  requiredEnv: ['SVC_UPSTREAM_SECRET'],
};

describe('Dockerfile', () => {
  it('is a multi-stage Node 24 image, runtime only, non-root, with the folder contract', () => {
    expect(dockerfile.match(/^FROM node:24-alpine/gm)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/SVC_RUNTIME_MODE=standalone/);
    expect(dockerfile).toMatch(/SVC_FOLDER_PATH=\/folder/);
    expect(dockerfile).toMatch(/MCP_RUNTIME_HOST=0\.0\.0\.0/);
    expect(dockerfile).toMatch(/^EXPOSE 3002$/m);
    expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/healthz/);
    expect(dockerfile).toMatch(/--omit=dev/);
    expect(dockerfile).toMatch(/runtime\/main\.ts/);
  });
});

describe('exported docker-compose.yml and .env.example agree with the runtime', () => {
  const compose = renderCompose();

  it('runs this image with the folder read-only at SVC_FOLDER_PATH and the health endpoint', () => {
    expect(RUNTIME_IMAGE).toContain('ghcr.io/svc-dev/svc-runtime');
    expect(compose).toContain('./:/folder:ro');
    expect(compose).toContain('SVC_FOLDER_PATH: /folder');
    expect(compose).toContain('SVC_RUNTIME_MODE: standalone');
    expect(compose).toContain('/healthz');
    expect(compose).toContain('MCP_RUNTIME_PORT');
  });

  it('names only variables the runtime reads (plus the compose-only image variable)', () => {
    const known = new Set<string>([...RUNTIME_ENV_VARIABLES, 'SVC_RUNTIME_IMAGE']);
    for (const v of envVariables(config)) expect(known.has(v.name), v.name).toBe(true);
  });

  it('an .env copied from .env.example with empty values boots with the defaults', () => {
    const env: Record<string, string> = {};
    for (const v of envVariables(config)) env[v.name] = '';
    Object.assign(env, {
      SVC_FOLDER_PATH: '/folder',
      SVC_RUNTIME_MODE: 'standalone',
      MCP_RUNTIME_HOST: '0.0.0.0',
    });
    const parsed = parseRuntimeEnv(env);
    expect(parsed).toMatchObject({ port: 3002, host: '0.0.0.0', folderPath: '/folder', syncIntervalSec: 60 });
    expect(parsed.allowedOrigins).toBeUndefined();
    expect(parsed.upstreamSecret).toBeUndefined();
    expect(parsed.syncUrl).toBeUndefined();
  });
});
