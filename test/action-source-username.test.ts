/**
 * The Action's `source-username` input: a real repository served over smart HTTP on loopback whose
 * host, like Bitbucket, accepts the token only with its own Basic user (`x-token-auth`), not GitHub's
 * `x-access-token`. With `source-token` alone the re-import is refused; with `source-username` set too
 * the run re-imports and commits, and the token is still nowhere but the runner's mask command.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOutputFile } from '../action/src/outputs.js';
import { addMaskLine, runAction } from '../action/src/run-action.js';
import { svcEngine } from '../action/src/svc-engine.js';
import { type FakeGitHub, startFakeGitHub } from '../action/testing/fake-github.js';
import type { TestRepo } from '../generator/sources/testing/git-test-repo.js';
import { type PrivateGitSource, startPrivateGitSource } from '../action/testing/private-git-source.js';
import type { GitHttpServer } from '../generator/sources/testing/git-http-server.js';

const TOKEN = 'src_tok_5b2f0e7c91d84a36';
const USER = 'x-token-auth';
const basic = (user: string) => `Basic ${Buffer.from(`${user}:${TOKEN}`).toString('base64')}`;
const now = () => new Date('2026-01-01T00:00:00Z');

let source: PrivateGitSource;
let server: GitHttpServer;
let sourceUrl: string;
let repo: TestRepo;
let gh: FakeGitHub;

beforeAll(async () => {
  source = await startPrivateGitSource({
    authorize: (a) => a === basic(USER),
    git: { token: TOKEN, username: USER },
    now,
  });
  ({ server, sourceUrl, repo } = source);
  gh = await startFakeGitHub({ owner: 'acme', repo: 'apis' });
  await repo.serve();
});

afterAll(async () => {
  await gh?.close();
  await source?.close();
});

const originHead = () =>
  execFileSync('git', ['rev-parse', 'main'], { cwd: repo.origin, encoding: 'utf8' }).trim();

/** A merge-mode run on a fresh clone of main, with these inputs. */
async function runPush(inputs: Record<string, string>) {
  const workspace = repo.checkout(mkdtempSync(join(repo.root, 'checkout-')));
  const tmp = mkdtempSync(join(tmpdir(), 'svc-action-source-username-run-'));
  writeFileSync(
    join(tmp, 'event.json'),
    JSON.stringify({ ref: 'refs/heads/main', head_commit: { message: 'v2' } }),
  );
  const env: Record<string, string> = {
    GITHUB_REPOSITORY: 'acme/apis',
    GITHUB_API_URL: gh.url,
    GITHUB_OUTPUT: join(tmp, 'output'),
    GITHUB_STEP_SUMMARY: join(tmp, 'summary.md'),
    RUNNER_TEMP: tmp,
    GITHUB_EVENT_NAME: 'push',
    GITHUB_EVENT_PATH: join(tmp, 'event.json'),
    GITHUB_REF: 'refs/heads/main',
    GITHUB_WORKSPACE: workspace,
    'INPUT_FAIL-ON': 'none',
    ...inputs,
  };
  writeFileSync(env['GITHUB_OUTPUT']!, '');
  const lines: string[] = [];
  const result = await runAction({ env, engine: svcEngine, fetch, log: (l) => lines.push(l) });
  return { result, lines, outputs: parseOutputFile(readFileSync(env['GITHUB_OUTPUT']!, 'utf8')) };
}

describe('the source-username input', () => {
  it('without it, the token goes as x-access-token, which this host refuses', async () => {
    const before = originHead();
    const seen = server.requests.length;
    const { result } = await runPush({ 'INPUT_SOURCE-TOKEN': TOKEN });
    expect(result.exitCode).toBe(1);
    expect(result.results[0]?.error ?? '').toContain(sourceUrl);
    expect(server.requests.slice(seen).some((r) => r.authorization === basic('x-access-token'))).toBe(true);
    expect(originHead()).toBe(before);
  });

  it('with it, the token goes with that user: the run re-imports and commits, the token nowhere', async () => {
    const before = originHead();
    const seen = server.requests.length;
    const run = await runPush({ 'INPUT_SOURCE-TOKEN': TOKEN, 'INPUT_SOURCE-USERNAME': USER });
    expect(run.result.results[0]?.error).toBeUndefined();
    expect(run.result.exitCode).toBe(0);
    expect(server.requests.slice(seen).some((r) => r.authorization === basic(USER))).toBe(true);
    expect(originHead()).toBe(run.result.commit);
    expect(originHead()).not.toBe(before);
    expect(run.outputs['changed']).toBe('true');
    expect(run.lines.filter((l) => l.includes(TOKEN))).toEqual([addMaskLine(TOKEN)]);
    expect(JSON.stringify(run.outputs)).not.toContain(TOKEN);
    expect(JSON.stringify(run.result)).not.toContain(TOKEN);
  });
});
