/**
 * --allow-external-refs follows a $ref only to the same kind of source as the document: http(s) URLs from a
 * document fetched over http(s), files under the document's directory from a document read from disk. A
 * remote document whose $ref names a local file (file:///…, directly or through another remote file) must
 * fail the import, naming the ref and where it appears, and the local file's content must reach no file.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc } from './helpers/run-cli.js';
import { type StaticServer, serveRoutes } from './helpers/serve-static.js';

const MARKER = 'LOCAL-FILE-MARKER-7f3a9c';

function documentWithRef(ref: string): string {
  return `openapi: 3.0.3
info: { title: Refs, version: '1' }
servers: [{ url: 'https://api.example.com' }]
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                $ref: '${ref}'
`;
}

const PET = `type: object
properties:
  name: { type: string }
`;

let work: string;
let secretFile: string;
let api: StaticServer;
let inner: StaticServer;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'svc-ext-refs-'));
  mkdirSync(path.join(work, 'private'));
  secretFile = path.join(work, 'private', 'secret.yaml');
  writeFileSync(secretFile, `type: object\ndescription: ${MARKER}\n`);
  const fileUrl = pathToFileURL(secretFile).href;
  const yaml = (body: string) => (_req: unknown, res: import('node:http').ServerResponse) =>
    res.writeHead(200, { 'content-type': 'application/yaml' }).end(body);
  inner = await serveRoutes({ '/pet.yaml': yaml(PET) });
  api = await serveRoutes({
    '/redirect-ref.yaml': yaml(documentWithRef('./schemas/moved.yaml')),
    '/schemas/moved.yaml': (_req, res) => res.writeHead(302, { location: `${inner.url}/pet.yaml` }).end(),
    '/file-ref.yaml': yaml(documentWithRef(fileUrl)),
    '/nested-ref.yaml': yaml(documentWithRef('./schemas/indirect.yaml')),
    '/schemas/indirect.yaml': yaml(`type: object\nproperties:\n  leak:\n    $ref: '${fileUrl}'\n`),
    '/http-ref.yaml': yaml(documentWithRef('./schemas/pet.yaml')),
    '/schemas/pet.yaml': yaml(PET),
  });
});

afterAll(async () => {
  await api.close();
  await inner.close();
  rmSync(work, { recursive: true, force: true });
});

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => path.join(dir, p))
    .filter((p) => lstatSync(p).isFile());
}

/** The marker in no file of the work directory but the secret file itself. */
function expectMarkerNowhere(): void {
  for (const file of filesUnder(work)) {
    if (file === secretFile) continue;
    expect(readFileSync(file, 'utf8'), file).not.toContain(MARKER);
  }
}

async function init(name: string, location: string) {
  return svc(['init', name, '--name', 'Refs', '--openapi', location, '--allow-external-refs'], { cwd: work });
}

describe('--allow-external-refs from a remote document', () => {
  it('refuses a file:// $ref, naming the ref and where it is, and writes nothing', async () => {
    const run = await init('mcp/file-ref', `${api.url}/file-ref.yaml`);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('SPEC_EXTERNAL_REF');
    expect(run.stderr).toContain(pathToFileURL(secretFile).href);
    expect(run.stderr).toContain('/paths/~1pets/get/responses/200/content/application~1json/schema');
    expect(run.stderr).toContain(`${api.url}/file-ref.yaml`);
    expect(existsSync(path.join(work, 'mcp/file-ref', 'config.yaml'))).toBe(false);
    expectMarkerNowhere();
  });

  it('refuses a file:// $ref reached through another remote file', async () => {
    const run = await init('mcp/nested-ref', `${api.url}/nested-ref.yaml`);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('SPEC_EXTERNAL_REF');
    expect(run.stderr).toContain(pathToFileURL(secretFile).href);
    expect(run.stderr).toContain(`${api.url}/schemas/indirect.yaml`);
    expect(existsSync(path.join(work, 'mcp/nested-ref', 'config.yaml'))).toBe(false);
    expectMarkerNowhere();
  });

  it("refuses a redirect from the document's server to another, private one, before asking it", async () => {
    const run = await init('mcp/redirect-ref', `${api.url}/redirect-ref.yaml`);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('SPEC_EXTERNAL_REF');
    expect(run.stderr).toContain(`redirected to ${inner.url}/pet.yaml`);
    expect(run.stderr).toContain('127.0.0.1');
    expect(inner.requests).toEqual([]);
    expect(existsSync(path.join(work, 'mcp/redirect-ref', 'config.yaml'))).toBe(false);
  });

  it('still bundles an http $ref of an http document', async () => {
    const run = await init('mcp/http-ref', `${api.url}/http-ref.yaml`);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const bundled = filesUnder(path.join(work, 'mcp/http-ref')).map((f) => readFileSync(f, 'utf8'));
    expect(bundled.join('\n')).toContain('name');
  });
});

describe('--allow-external-refs from a local document', () => {
  it('refuses a $ref that leaves the document directory', async () => {
    const docDir = path.join(work, 'api');
    mkdirSync(docDir, { recursive: true });
    writeFileSync(path.join(docDir, 'escape.yaml'), documentWithRef('../private/secret.yaml'));
    const run = await init('mcp/escape', path.join(docDir, 'escape.yaml'));
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('SPEC_EXTERNAL_REF');
    expect(run.stderr).toContain('../private/secret.yaml');
    expect(existsSync(path.join(work, 'mcp/escape', 'config.yaml'))).toBe(false);
    expectMarkerNowhere();
  });

  it('refuses a symbolic link that leads out of the document directory', async () => {
    const docDir = path.join(work, 'api-link');
    mkdirSync(path.join(docDir, 'schemas'), { recursive: true });
    symlinkSync(secretFile, path.join(docDir, 'schemas', 'pet.yaml'));
    writeFileSync(path.join(docDir, 'link.yaml'), documentWithRef('./schemas/pet.yaml'));
    const run = await init('mcp/link', path.join(docDir, 'link.yaml'));
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('SPEC_EXTERNAL_REF');
    expect(existsSync(path.join(work, 'mcp/link', 'config.yaml'))).toBe(false);
    expectMarkerNowhere();
  });

  it('refuses an http $ref from a local document', async () => {
    const docDir = path.join(work, 'api');
    mkdirSync(docDir, { recursive: true });
    writeFileSync(path.join(docDir, 'remote.yaml'), documentWithRef(`${api.url}/schemas/pet.yaml`));
    const before = api.requests.length;
    const run = await init('mcp/remote', path.join(docDir, 'remote.yaml'));
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('SPEC_EXTERNAL_REF');
    expect(api.requests.length).toBe(before);
  });

  it('still bundles a file under the document directory', async () => {
    const docDir = path.join(work, 'api');
    mkdirSync(path.join(docDir, 'schemas'), { recursive: true });
    writeFileSync(path.join(docDir, 'schemas', 'pet.yaml'), PET);
    writeFileSync(path.join(docDir, 'local.yaml'), documentWithRef('./schemas/pet.yaml'));
    const run = await init('mcp/local', path.join(docDir, 'local.yaml'));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});
