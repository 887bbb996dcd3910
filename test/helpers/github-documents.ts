/**
 * Two real successive releases of GitHub's REST description: @octokit/openapi 22.0.0, kept
 * gzipped in fixtures, and the installed release (23.x), which is absent when the package is
 * not installed (tests skip on `!existsSync(GITHUB_INSTALLED)`).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

const root = path.resolve(import.meta.dirname, '..', '..');

export const GITHUB_22_GZ = path.join(root, 'fixtures', 'reimport', 'api.github.com-22.0.0.json.gz');
export const GITHUB_INSTALLED = path.join(
  root,
  'node_modules',
  '@octokit',
  'openapi',
  'generated',
  'api.github.com.json',
);

/** The bytes of release 22.0.0's document (JSON, UTF-8). */
export async function readGithub22(): Promise<Buffer> {
  return gunzipSync(await readFile(GITHUB_22_GZ));
}
