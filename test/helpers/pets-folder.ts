/**
 * The start of a re-import: a folder `pets` imported from fixtures/reimport/petstore-v1.yaml, in a
 * new temporary directory that also holds v1.yaml (its source, `../v1.yaml`) and v2.yaml (the next
 * release of the same API).
 */
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importFolder } from '../../generator/import/index.js';
import type { SvcConfig } from '../../schemas/types.js';

const fixtures = path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'reimport');

export interface PetsFolder {
  /** The temporary directory: v1.yaml, v2.yaml and the folder. */
  root: string;
  /** The folder, `<root>/pets`. */
  dir: string;
}

export async function importedPetsFolder(prefix: string): Promise<PetsFolder> {
  const root = await mkdtemp(path.join(tmpdir(), prefix));
  await cp(path.join(fixtures, 'petstore-v1.yaml'), path.join(root, 'v1.yaml'));
  await cp(path.join(fixtures, 'petstore-v2.yaml'), path.join(root, 'v2.yaml'));
  const dir = path.join(root, 'pets');
  const config: SvcConfig = {
    schemaVersion: 1,
    server: { id: 'pets', name: 'Default', published: false },
    app: { name: 'Pets', provider: 'openapi' },
    source: { kind: 'openapi', location: '../v1.yaml' },
    auth: { mode: 'none', hasAuthSecret: false },
    apiBaseUrl: '',
    requiredEnv: [],
  };
  const first = await importFolder({ dir, config });
  if (first.status !== 'complete') throw new Error(`the first import of ${dir} did not complete`);
  return { root, dir };
}
