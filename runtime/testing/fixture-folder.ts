/**
 * Copies a hand-written fixture folder to a temporary directory with its apiBaseUrl pointed at
 * a live upstream, so tests boot the runtime from a real folder on disk.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempFolder {
  dir: string;
  remove(): Promise<void>;
}

export async function copyFixtureFolder(
  source: string,
  apiBaseUrl: string,
  edit?: (configYaml: string) => string,
): Promise<TempFolder> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-runtime-'));
  await cp(source, dir, { recursive: true });
  const configPath = join(dir, 'config.yaml');
  let config = await readFile(configPath, 'utf8');
  config = config.replace(/^apiBaseUrl: .*$/m, `apiBaseUrl: ${apiBaseUrl}`);
  if (edit) config = edit(config);
  await writeFile(configPath, config);
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
