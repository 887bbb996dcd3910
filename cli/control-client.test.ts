import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSvcError } from '../core/svc-error.js';
import type { CliIo } from '../core/command.js';
import { controlClientFrom, isTransient } from './control-client.js';

const io = (env: Record<string, string>): CliIo => ({ stdout() {}, stderr() {}, cwd: '/', env });

function refusal(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (isSvcError(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

async function rejection(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (isSvcError(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

let server: Server;
let url: string;
const seen: (string | undefined)[] = [];

beforeAll(async () => {
  // A proxy in front of a restarting service: 503 with no JSON.
  server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('controlClientFrom', () => {
  it('needs the URL and SVC_TOKEN, and says where each comes from', () => {
    const noUrl = refusal(() => controlClientFrom('export', undefined, io({ SVC_TOKEN: 'svc_pat_x' })));
    expect(noUrl.code).toBe('USAGE');
    expect(noUrl.message).toContain('--control <url> or SVC_CONTROL_URL');
    const noToken = refusal(() => controlClientFrom('import', undefined, io({ SVC_CONTROL_URL: url })));
    expect(noToken.code).toBe('USAGE');
    expect(noToken.message).toContain('set SVC_TOKEN to a workspace token');
    const flag = controlClientFrom(
      'export',
      `${url}/`,
      io({ SVC_CONTROL_URL: 'http://ignored', SVC_TOKEN: 't' }),
    );
    expect(flag.url).toBe(url);
  });

  it('refuses a URL with credentials without repeating them', () => {
    const error = refusal(() =>
      controlClientFrom('export', 'https://ci:hunter2@control.example', io({ SVC_TOKEN: 'svc_pat_x' })),
    );
    expect(error.code).toBe('USAGE');
    expect(error.describe()).not.toContain('hunter2');
    expect(refusal(() => controlClientFrom('export', 'ftp://x', io({ SVC_TOKEN: 't' }))).code).toBe('USAGE');
  });
});

describe('requests', () => {
  it('a 503 without JSON is a transient refusal naming the URL; the token goes in the header only', async () => {
    const client = controlClientFrom('import', url, io({ SVC_TOKEN: 'svc_pat_secret' }));
    const error = await rejection(client.request('GET', '/v1/servers/pets/imports/j'));
    expect(error.describe()).toBe(
      `CONTROL_REFUSED: ${url}/v1/servers/pets/imports/j: the control service answered 503: HTTP 503`,
    );
    expect(isTransient(error)).toBe(true);
    expect(seen.at(-1)).toBe('Bearer svc_pat_secret');
  });

  it('nobody listening: CONTROL_UNREACHABLE with the URL and the reason', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const client = controlClientFrom('export', `http://127.0.0.1:${port}`, io({ SVC_TOKEN: 'svc_pat_x' }));
    const error = await rejection(client.request('GET', '/v1/servers/pets/export'));
    expect(error.code).toBe('CONTROL_UNREACHABLE');
    expect(error.describe()).toMatch(
      new RegExp(
        `^CONTROL_UNREACHABLE: http://127\\.0\\.0\\.1:${port}/v1/servers/pets/export: cannot reach the control service: .*ECONNREFUSED`,
      ),
    );
    expect(isTransient(error)).toBe(true);
  });
});
