/**
 * For the Action's tests of a folder whose source is a private git repository: the source, served
 * over smart HTTP on loopback and answering 401 unless `authorize` accepts the request's
 * Authorization header, holds the Petstore document; the consumer repository has a `pets` server
 * imported from it (v1, committed and pushed). Then the source moves on to v2, so a re-import
 * changes the folder.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { importFolder } from '../../generator/import/index.js';
import { type GitHttpServer, startGitHttpServer } from '../../generator/sources/testing/git-http-server.js';
import { makeRepo, type RepoFixture } from '../../generator/sources/testing/git-repo-fixture.js';
import type { SvcConfig } from '../../schemas/types.js';
import { createTestRepo, type TestRepo } from '../../generator/sources/testing/git-test-repo.js';
import { configYaml } from '../../generator/testing/server-folder.js';

export interface PrivateGitSource {
  /** A temporary directory for the test's own files (caches). */
  root: string;
  source: RepoFixture;
  server: GitHttpServer;
  /** The source repository's URL, as the folder's config.yaml names it. */
  sourceUrl: string;
  /** The consumer repository, with `mcp/pets` imported from the source. */
  repo: TestRepo;
  close(): Promise<void>;
}

export function actionFixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/action/${name}`, import.meta.url), 'utf8');
}

export async function startPrivateGitSource(options: {
  authorize: (authorization: string | undefined) => boolean;
  /** The credential the set-up import uses. */
  git: { token: string; username?: string };
  now: () => Date;
}): Promise<PrivateGitSource> {
  const root = mkdtempSync(join(tmpdir(), 'svc-private-git-source-'));
  const source = await makeRepo(root, 'specs');
  source.commit({ 'openapi/petstore.yaml': actionFixture('petstore-v1.yaml') }, 'v1');
  const server = await startGitHttpServer({ root: join(root, 'repos'), authorize: options.authorize });
  const sourceUrl = `${server.url}/specs.git`;
  const repo = createTestRepo();
  const config = parseYaml(
    configYaml('pets', {
      kind: 'git',
      provider: 'git',
      repository: sourceUrl,
      branch: 'main',
      path: 'openapi/petstore.yaml',
    }).replace('provider: manual', 'provider: git'),
  ) as SvcConfig;
  const first = await importFolder({
    dir: join(repo.dir, 'mcp', 'pets'),
    config,
    now: options.now,
    git: { ...options.git, cacheDir: join(root, 'setup-cache') },
  });
  if (first.status !== 'complete') throw new Error(`set-up import failed: ${first.error?.describe()}`);
  repo.commit('add the pets server');
  repo.git('push', '-q', 'origin', 'main');
  source.commit({ 'openapi/petstore.yaml': actionFixture('petstore-v2.yaml') }, 'v2');
  return {
    root,
    source,
    server,
    sourceUrl,
    repo,
    async close() {
      await server.close();
      await repo.cleanup();
    },
  };
}
