/**
 * A real git repository holding an API description and the svc server folder imported from it
 * (by the generator's own importFolder), as a team would keep it: `specs/petstore.yaml` and
 * `mcp/pets/` on `main`, pushed to a bare repository that the control service registers (by
 * path, or over smart HTTP when the bare repository sits under a git HTTP server's root).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { createTestRepo, type TestRepo } from '../../generator/sources/testing/git-test-repo.js';
import { configYaml } from '../../generator/testing/server-folder.js';
import { packageRoot } from '../../core/package-root.js';
import { importFolder } from '../../generator/import/index.js';
import type { SvcConfig } from '../../schemas/types.js';

export const SERVER_ID = 'pets';
export const FOLDER = 'mcp/pets';

export function petstore(version: 'v1' | 'v2'): string {
  // packageRoot: the same path from source (tests) and from dist/ (the bench).
  return readFileSync(join(packageRoot(), 'fixtures', 'action', `petstore-${version}.yaml`), 'utf8');
}

export interface ServerRepo {
  repo: TestRepo;
  /** The bare repository (a path the service can register, or served over HTTP). */
  bare: string;
  /** Commits files on top of the bare repository's main and pushes them. */
  push(files: Record<string, string | null>, message: string): string;
  /** `git log` subjects and trailers of main in the bare repository, newest first. */
  log(): string[];
  headMessage(): string;
  cleanup(): void;
}

export async function createServerRepo(
  opts: { bareDir?: string; published?: boolean; enableAllTools?: boolean } = {},
): Promise<ServerRepo> {
  const repo = createTestRepo();
  repo.write({ 'specs/petstore.yaml': petstore('v1'), 'README.md': '# apis\n' });
  const config = parseYaml(
    configYaml(SERVER_ID, { kind: 'openapi', location: '../../specs/petstore.yaml' })
      .replace('provider: manual', 'provider: openapi')
      .replace('published: false', `published: ${opts.published ?? true}`),
  ) as SvcConfig;
  const first = await importFolder({
    dir: join(repo.dir, FOLDER),
    config,
    now: () => new Date('2026-01-01T00:00:00Z'),
  });
  if (first.status !== 'complete') throw new Error(`fixture import failed: ${first.report.summary}`);
  if (opts.enableAllTools) {
    // A reviewer turns every generated tool on, so the runtime lists them.
    for (const [path, text] of Object.entries(first.files)) {
      if (/^Tools\/[^/]+\.yaml$/.test(path)) {
        repo.write({ [`${FOLDER}/${path}`]: text.replace('enabled: false', 'enabled: true') });
      }
    }
  }
  repo.commit('add the pets server');
  let bare = repo.origin;
  if (opts.bareDir) {
    mkdirSync(join(opts.bareDir, '..'), { recursive: true });
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', opts.bareDir]);
    repo.git('remote', 'set-url', 'origin', opts.bareDir);
    bare = opts.bareDir;
  }
  repo.git('push', '-q', 'origin', 'main');
  return {
    repo,
    bare,
    push(files, message) {
      repo.git('pull', '-q', '--rebase', 'origin', 'main');
      repo.write(files);
      const sha = repo.commit(message);
      repo.git('push', '-q', 'origin', 'main');
      return sha;
    },
    log: () =>
      execFileSync('git', ['--git-dir', bare, 'log', '--format=%B%n--', 'main'], { encoding: 'utf8' })
        .split('--\n')
        .map((s) => s.trim())
        .filter(Boolean),
    headMessage: () =>
      execFileSync('git', ['--git-dir', bare, 'log', '-1', '--format=%B', 'main'], { encoding: 'utf8' }),
    cleanup: () => repo.cleanup(),
  };
}
