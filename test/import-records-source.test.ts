/**
 * `svc import --openapi <new>` makes <new> the folder's source (config.yaml), so that a later
 * plain `svc import` does not go back to the old document and undo the upgrade (issue 9).
 */
import { readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readFolder } from '../folder/index.js';
import type { SvcConfig } from '../schemas/types.js';
import { importedPetsFolder } from './helpers/pets-folder.js';
import { svc } from './helpers/run-cli.js';

let root: string;
let dir: string;
let server: Server;
let base: string;

/** `svc <argv>` in-process, from the folder's parent directory. */
const cli = (...argv: string[]) => svc(argv, { cwd: root });

const source = async () => (parse(await readFile(path.join(dir, 'config.yaml'), 'utf8')) as SvcConfig).source;

beforeAll(async () => {
  ({ root, dir } = await importedPetsFolder('svc-import-source-'));
  const v2 = await readFile(path.join(root, 'v2.yaml'), 'utf8');
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/yaml' });
    res.end(v2);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(root, { recursive: true, force: true });
});

describe('svc import --openapi <new>', () => {
  it('records the new source, so a plain svc import keeps the upgrade', async () => {
    expect((await cli('import', 'pets', '--openapi', 'v2.yaml')).code).toBe(0);
    expect(await source()).toMatchObject({ kind: 'openapi', location: '../v2.yaml' });
    const upgraded = await readFolder(dir);
    expect(upgraded['Tools/getPetHistory.yaml']).toBeDefined();

    const again = await cli('import', 'pets', '--json');
    expect(again.code).toBe(0);
    const result = JSON.parse(again.stdout) as { changed: boolean; report: { source: { location: string } } };
    expect(result.report.source.location).toBe('../v2.yaml');
    expect(result.changed).toBe(false);
    const after = await readFolder(dir);
    for (const [p, text] of Object.entries(upgraded))
      if (!p.startsWith('.svc/')) expect([p, after[p]]).toEqual([p, text]);
  });

  it('does not write down a URL that carries a credential', async () => {
    const before = await source();
    expect((await cli('import', 'pets', '--openapi', `${base}/openapi.yaml?api_key=s3cr3t-value`)).code).toBe(
      0,
    );
    expect(await source()).toEqual(before);
    const files = await readFolder(dir);
    for (const text of Object.values(files)) expect(text).not.toContain('s3cr3t-value');
    // Without a credential the URL is the new source.
    expect((await cli('import', 'pets', '--openapi', `${base}/openapi.yaml`)).code).toBe(0);
    expect(await source()).toMatchObject({ location: `${base}/openapi.yaml` });
  });
});
