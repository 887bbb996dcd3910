/**
 * External $refs over http(s) against real loopback servers, with the DNS answer injected: a public-looking
 * name whose address is private is refused before anything is sent to it, a redirect from an allowed
 * server to a private one is refused before the private one is asked, and the allowed paths connect to
 * the address that was checked (the names used here exist in no real DNS).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../core/svc-error.js';
import type { HostResolver } from '../../core/private-address-resolve.js';
import { type StaticServer, serveRoutes } from '../../test/helpers/serve-static.js';
import { bundleExternalRefs } from '../parse/external-refs.js';
import { collectRefs } from '../parse/ref-walk.js';
import { gatherExternalRefs } from './read-external-refs.js';

const PET = 'type: object\nproperties:\n  name: { type: string }\n';
const SECRET = 'type: object\ndescription: PRIVATE-SERVER-MARKER\n';

function documentWithRef(ref: string): Record<string, unknown> {
  return {
    openapi: '3.0.3',
    info: { title: 'Refs', version: '1' },
    paths: {
      '/pets': {
        get: {
          responses: {
            '200': { description: 'ok', content: { 'application/json': { schema: { $ref: ref } } } },
          },
        },
      },
    },
  };
}

const FIELD = '/paths/~1pets/get/responses/200/content/application~1json/schema';

let allowed: StaticServer;
let inner: StaticServer;
let port: (s: StaticServer) => string;

/** Names that no real DNS knows, answered as a hostile or a friendly DNS server would. */
const resolver: HostResolver = async (host) => {
  const table: Record<string, string[]> = {
    'docs.example': ['127.0.0.1'],
    'public-looking.example': ['127.0.0.1'],
    'mixed.example': ['93.184.216.34', '10.0.0.7'],
    'metadata.example': ['169.254.169.254'],
    'mapped.example': ['::ffff:127.0.0.1'],
    'v6.example': ['::1'],
    'ula.example': ['fd12::1'],
    '127.0.0.1': ['127.0.0.1'],
  };
  const addresses = table[host];
  if (!addresses) throw Object.assign(new Error(`unknown host ${host}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

beforeAll(async () => {
  inner = await serveRoutes({
    '/secret.yaml': (_req, res) => res.writeHead(200, { 'content-type': 'application/yaml' }).end(SECRET),
  });
  port = (s) => new URL(s.url).port;
  allowed = await serveRoutes({
    '/schemas/pet.yaml': (_req, res) => res.writeHead(200, { 'content-type': 'application/yaml' }).end(PET),
    '/to-private': (_req, res) =>
      res.writeHead(302, { location: `http://127.0.0.1:${port(inner)}/secret.yaml` }).end(),
    '/to-named-private': (_req, res) =>
      res.writeHead(302, { location: `http://public-looking.example:${port(inner)}/secret.yaml` }).end(),
    '/loop': (_req, res) => res.writeHead(302, { location: '/loop' }).end(),
  });
});

afterAll(async () => {
  await Promise.all([allowed.close(), inner.close()]);
});

async function bundle(origin: string, ref: string): Promise<Record<string, unknown>> {
  const document = documentWithRef(ref);
  const files = await gatherExternalRefs(origin, collectRefs(document).external, undefined, resolver);
  return bundleExternalRefs(document, origin, files);
}

async function refusal(origin: string, ref: string): Promise<SvcError> {
  const error = await bundle(origin, ref).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SvcError);
  return error as SvcError;
}

describe('external $refs resolving to private addresses', () => {
  it.each([
    ['public-looking.example', '127.0.0.1'],
    ['mixed.example', '10.0.0.7'],
    ['metadata.example', '169.254.169.254'],
    ['mapped.example', '::ffff:127.0.0.1'],
    ['v6.example', '::1'],
    ['ula.example', 'fd12::1'],
  ])('refuses %s (resolves to %s) before sending it anything', async (host, address) => {
    const before = inner.requests.length;
    const origin = `${allowed.url}/api.yaml`;
    const ref = `http://${host}:${port(inner)}/secret.yaml`;
    const error = await refusal(origin, ref);
    expect(error.code).toBe('SPEC_EXTERNAL_REF');
    expect(error.message).toContain(ref);
    expect(error.message).toContain(host);
    expect(error.message).toContain(address);
    expect(error.message).toContain(origin);
    expect(error.place).toEqual({ url: origin, field: FIELD });
    expect(inner.requests.length).toBe(before);
  });

  it.each([
    ['/to-private', '127.0.0.1'],
    ['/to-named-private', 'public-looking.example'],
  ])(
    'refuses a redirect (%s) from the allowed server to a private one, before following it',
    async (path, host) => {
      const before = inner.requests.length;
      const error = await refusal(`${allowed.url}/api.yaml`, `.${path}`);
      expect(error.code).toBe('SPEC_EXTERNAL_REF');
      expect(error.message).toContain(`${allowed.url}${path}`);
      expect(error.message).toContain(`redirected to http://${host}:${port(inner)}/secret.yaml`);
      expect(error.message).toContain('127.0.0.1');
      expect(inner.requests.length).toBe(before);
    },
  );

  it('stops a redirect loop after a few hops', async () => {
    const error = await refusal(`${allowed.url}/api.yaml`, './loop');
    expect(error.code).toBe('SPEC_EXTERNAL_REF');
    expect(error.message).toContain('redirected more than 5 times');
    expect(allowed.requests.filter((r) => r.path === '/loop').length).toBe(6);
  });

  it("bundles a $ref on the document's own origin, connecting to the address checked for its name", async () => {
    // docs.example is known only to the injected resolver: the fetch works only if it uses that answer.
    const bundled = await bundle(`http://docs.example:${port(allowed)}/api.yaml`, './schemas/pet.yaml');
    expect(JSON.stringify(bundled)).toContain('"name"');
    expect(JSON.stringify(bundled)).not.toContain('$ref');
  });

  it('bundles a $ref of a document on a loopback address of the user’s choosing', async () => {
    const bundled = await bundle(`${allowed.url}/api.yaml`, './schemas/pet.yaml');
    expect(JSON.stringify(bundled)).toContain('"name"');
  });
});
