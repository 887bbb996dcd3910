/**
 * A git source against a file source of the same document and content directories (issue 11):
 * GitHub's REST description (the installed @octokit/openapi, 1,000+ endpoints) plus the content
 * fixture, committed to a real repository served by `git http-backend` on loopback. Measures the
 * first import from a file, the first import from the branch (cold cache: the shallow fetch is
 * included), and the re-import of the unchanged commit, which must write nothing but its
 * history record. Medians of three runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFolder } from '../folder/index.js';
import { importFolder } from '../generator/import/index.js';
import { initialConfig } from '../generator/init/index.js';
import { startGitHttpServer } from '../generator/sources/testing/git-http-server.js';
import { makeRepo } from '../generator/sources/testing/git-repo-fixture.js';

export interface GitBenchResult {
  endpoints: number;
  fileImportMedianMs: number;
  gitImportMedianMs: number;
  ratio: number;
  unchangedReimportMedianMs: number;
  /** Files written by the re-import of the unchanged commit: only its history record. */
  unchangedReimportWrote: string[];
}

function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function runGitBench(): Promise<GitBenchResult | undefined> {
  const root = repoRoot();
  const document = path.join(root, 'node_modules', '@octokit', 'openapi', 'generated', 'api.github.com.json');
  const content = path.join(root, 'fixtures', 'content');
  if (!existsSync(document)) {
    console.log('git bench skipped: @octokit/openapi is missing');
    return undefined;
  }
  const work = await mkdtemp(path.join(tmpdir(), 'svc-git-bench-'));
  const repo = await makeRepo(work, 'api');
  await repo.copyIn(content, 'mcp');
  repo.commit({ 'openapi/api.github.com.json': readFileSync(document, 'utf8') });
  const server = await startGitHttpServer({ root: path.join(work, 'repos') });
  try {
    const file: number[] = [];
    const git: number[] = [];
    const again: number[] = [];
    let endpoints = 0;
    let wrote: string[] = [];
    for (let i = 0; i < 3; i++) {
      let start = performance.now();
      const fromFile = await importFolder({
        dir: path.join(work, `file-${i}`),
        config: initialConfig({ name: 'GitHub', serverId: 'github', openapi: document, contentDir: content }),
      });
      file.push(performance.now() - start);
      if (fromFile.status !== 'complete') throw fromFile.error;
      endpoints = fromFile.report.counts.endpoints.after;

      const dir = path.join(work, `git-${i}`);
      const cacheDir = path.join(work, `cache-${i}`);
      start = performance.now();
      const fromGit = await importFolder({
        dir,
        config: initialConfig({
          name: 'GitHub',
          serverId: 'github',
          git: {
            kind: 'git',
            provider: 'git',
            repository: `${server.url}/api.git`,
            branch: 'main',
            path: 'openapi/api.github.com.json',
            contentDir: 'mcp',
          },
        }),
        git: { cacheDir },
      });
      git.push(performance.now() - start);
      if (fromGit.status !== 'complete') throw fromGit.error;

      const before = await readFolder(dir);
      start = performance.now();
      const reimport = await importFolder({ dir, git: { cacheDir } });
      again.push(performance.now() - start);
      if (reimport.status !== 'complete') throw reimport.error;
      const after = await readFolder(dir);
      wrote = Object.keys(after).filter((p) => before[p] !== after[p]);
    }
    const result: GitBenchResult = {
      endpoints,
      fileImportMedianMs: Math.round(median(file)),
      gitImportMedianMs: Math.round(median(git)),
      ratio: Math.round((median(git) / median(file)) * 100) / 100,
      unchangedReimportMedianMs: Math.round(median(again)),
      unchangedReimportWrote: wrote,
    };
    console.log(`GitHub REST description (${endpoints} endpoints) + the content fixture, 3 runs each`);
    console.log('');
    console.log('| measure | median |');
    console.log('|---|---:|');
    console.log(`| first import from a file | ${result.fileImportMedianMs} ms |`);
    console.log(
      `| first import from the git branch (shallow fetch, cold cache) | ${result.gitImportMedianMs} ms |`,
    );
    console.log(`| git / file | ${result.ratio}x (aim: within 2x) |`);
    console.log(`| re-import of the unchanged commit | ${result.unchangedReimportMedianMs} ms |`);
    console.log(`| files it wrote | ${wrote.join(', ') || 'none'} |`);
    return result;
  } finally {
    await server.close();
    await rm(work, { recursive: true, force: true });
  }
}
