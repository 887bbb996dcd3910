/**
 * The Action on a folder whose source is a private git repository: a real repository served over smart
 * HTTP on loopback that answers 401 without Basic auth. Without the `source-token` input the run fails
 * and says which URL needs which credential; with it the re-import is committed. The token reaches the
 * git server and nothing else: no file of the folder, no output, report or summary, no comment, no log
 * line but the runner's `::add-mask::` command. In pull_request mode a pull request that changes the
 * folder's source does not get the token sent to its new source; check and merge modes send it only on
 * events that cannot run a pull request's code (push, workflow_dispatch, …).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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

const TOKEN = 'src_tok_7d1e55b0c4a94f2e';
const BASIC = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
const now = () => new Date('2026-01-01T00:00:00Z');

let source: PrivateGitSource;
let server: GitHttpServer;
let sourceUrl: string;
let repo: TestRepo;
let gh: FakeGitHub;

beforeAll(async () => {
  source = await startPrivateGitSource({ authorize: (a) => a === BASIC, git: { token: TOKEN }, now });
  ({ server, sourceUrl, repo } = source);
  gh = await startFakeGitHub({ owner: 'acme', repo: 'apis' });
  await repo.serve();
});

afterAll(async () => {
  await gh?.close();
  await source?.close();
});

function checkout(): string {
  return repo.checkout(mkdtempSync(join(repo.root, 'checkout-')));
}

/** Every file under `dir`, as text (the run's temporary directory: outputs, summary, reports, git cache). */
function textsUnder(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) Object.assign(out, textsUnder(full));
    else out[full] = readFileSync(full, 'latin1');
  }
  return out;
}

async function run(env: Record<string, string>) {
  const tmp = mkdtempSync(join(tmpdir(), 'svc-action-source-token-run-'));
  const full: Record<string, string> = {
    GITHUB_REPOSITORY: 'acme/apis',
    GITHUB_API_URL: gh.url,
    GITHUB_OUTPUT: join(tmp, 'output'),
    GITHUB_STEP_SUMMARY: join(tmp, 'summary.md'),
    RUNNER_TEMP: tmp,
    'INPUT_FAIL-ON': 'none',
    ...env,
  };
  writeFileSync(full['GITHUB_OUTPUT']!, '');
  const lines: string[] = [];
  const result = await runAction({ env: full, engine: svcEngine, fetch, log: (l) => lines.push(l) });
  // Including the repository cache the re-import fetched into (svc-git-cache): objects, no credential.
  const files = textsUnder(tmp);
  expect(Object.keys(files).length).toBeGreaterThan(2);
  return { result, lines, files, outputs: parseOutputFile(readFileSync(full['GITHUB_OUTPUT']!, 'utf8')) };
}

async function runPush(inputs: Record<string, string> = {}) {
  const workspace = checkout();
  const tmp = mkdtempSync(join(tmpdir(), 'svc-action-source-token-event-'));
  writeFileSync(
    join(tmp, 'event.json'),
    JSON.stringify({ ref: 'refs/heads/main', head_commit: { message: 'v2' } }),
  );
  return run({
    GITHUB_EVENT_NAME: 'push',
    GITHUB_EVENT_PATH: join(tmp, 'event.json'),
    GITHUB_REF: 'refs/heads/main',
    GITHUB_WORKSPACE: workspace,
    ...inputs,
  });
}

const originHead = () =>
  execFileSync('git', ['rev-parse', 'main'], { cwd: repo.origin, encoding: 'utf8' }).trim();

/** Every blob of the origin's main, as text. */
function committedTexts(): string {
  const names = execFileSync('git', ['ls-tree', '-r', '--name-only', 'main'], {
    cwd: repo.origin,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);
  return names
    .map((n) => execFileSync('git', ['show', `main:${n}`], { cwd: repo.origin, encoding: 'latin1' }))
    .join('\n');
}

function expectNoToken(run: Awaited<ReturnType<typeof runPush>>) {
  // The one line that carries it is the runner's mask command, which the runner consumes unprinted.
  expect(run.lines.filter((l) => l.includes(TOKEN))).toEqual([addMaskLine(TOKEN)]);
  expect(run.lines[0]).toBe(addMaskLine(TOKEN));
  for (const [path, text] of Object.entries(run.files)) expect(text, path).not.toContain(TOKEN);
  expect(JSON.stringify(run.outputs)).not.toContain(TOKEN);
  expect(JSON.stringify(run.result)).not.toContain(TOKEN);
}

describe('the source-token input', () => {
  it('without it, merge mode fails and says which URL needs which credential', async () => {
    const before = originHead();
    const seen = server.requests.length;
    const { result, lines } = await runPush();
    expect(result.exitCode).toBe(1);
    const error = result.results[0]?.error ?? '';
    expect(error).toContain(`${sourceUrl} needs credentials`);
    expect(error).toContain("the action's source-token input");
    expect(lines.some((l) => l.startsWith('::error::') && l.includes('mcp/pets'))).toBe(true);
    expect(originHead()).toBe(before);
    // Asked, refused: the server saw requests, none with a credential.
    expect(server.requests.length).toBeGreaterThan(seen);
    expect(server.requests.slice(seen).every((r) => r.authorization === undefined)).toBe(true);
  });

  it('with it, merge mode re-imports from the private repository and commits, the token nowhere', async () => {
    const before = originHead();
    const seen = server.requests.length;
    const pushed = await runPush({ 'INPUT_SOURCE-TOKEN': TOKEN });
    expect(pushed.result.results[0]?.error).toBeUndefined();
    expect(pushed.result.exitCode).toBe(0);
    expect(pushed.result.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(originHead()).toBe(pushed.result.commit);
    expect(originHead()).not.toBe(before);
    expect(server.requests.slice(seen).some((r) => r.authorization === BASIC)).toBe(true);
    expect(pushed.outputs['changed']).toBe('true');
    expectNoToken(pushed);
    expect(committedTexts()).not.toContain(TOKEN);
    // The folder records the source by its URL and the commit read, never a credential.
    const config = execFileSync('git', ['show', 'main:mcp/pets/config.yaml'], {
      cwd: repo.origin,
      encoding: 'utf8',
    });
    expect(config).toContain(`repository: ${sourceUrl}`);
    expect(config).toContain('commit: ');
  });

  it('pull_request mode: a comment from the private source, with the token nowhere in it', async () => {
    repo.git('fetch', '-q', 'origin');
    repo.git('checkout', '-q', '-B', 'enable', 'origin/main');
    const base = repo.git('rev-parse', 'HEAD');
    const tool = readdirSync(join(repo.dir, 'mcp', 'pets', 'Tools')).find((n) => n.endsWith('.yaml'))!;
    const toolPath = join(repo.dir, 'mcp', 'pets', 'Tools', tool);
    writeFileSync(toolPath, readFileSync(toolPath, 'utf8').replace('enabled: false', 'enabled: true'));
    const head = repo.commit('enable a tool');
    const tmp = mkdtempSync(join(tmpdir(), 'svc-action-source-token-pr-'));
    writeFileSync(
      join(tmp, 'event.json'),
      JSON.stringify({ pull_request: { number: 5, base: { sha: base }, head: { sha: head } } }),
    );
    const seen = server.requests.length;
    const pr = await run({
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: join(tmp, 'event.json'),
      GITHUB_WORKSPACE: repo.dir,
      'INPUT_SOURCE-TOKEN': TOKEN,
    });
    expect(pr.result.results[0]?.error).toBeUndefined();
    expect(pr.result.results[0]?.reimport?.status).toBe('complete');
    expect(server.requests.slice(seen).some((r) => r.authorization === BASIC)).toBe(true);
    expect(pr.result.exitCode).toBe(0);
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]!.body).toContain('mcp/pets');
    expect(JSON.stringify(gh.requests)).not.toContain(TOKEN);
    expectNoToken(pr);
  });

  it('pull_request mode: a pull request that points the folder elsewhere does not get the token sent there', async () => {
    repo.git('checkout', '-q', '-B', 'repoint', 'origin/main');
    const base = repo.git('rev-parse', 'HEAD');
    const configPath = join(repo.dir, 'mcp', 'pets', 'config.yaml');
    // Same host here; in an attack, a host of the pull request author's.
    writeFileSync(
      configPath,
      readFileSync(configPath, 'utf8').replace(
        `repository: ${sourceUrl}`,
        `repository: ${server.url}/collect.git`,
      ),
    );
    const head = repo.commit('point the source elsewhere');
    const tmp = mkdtempSync(join(tmpdir(), 'svc-action-source-token-pr-'));
    writeFileSync(
      join(tmp, 'event.json'),
      JSON.stringify({ pull_request: { number: 6, base: { sha: base }, head: { sha: head } } }),
    );
    const seen = server.requests.length;
    const pr = await run({
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: join(tmp, 'event.json'),
      GITHUB_WORKSPACE: repo.dir,
      'INPUT_SOURCE-TOKEN': TOKEN,
    });
    const asked = server.requests.slice(seen);
    expect(asked.some((r) => r.path.startsWith('/collect.git/'))).toBe(true);
    expect(asked.every((r) => r.authorization === undefined)).toBe(true);
    const error = pr.result.results[0]?.error ?? '';
    expect(error).toContain(`${server.url}/collect.git needs credentials`);
    expect(error).toContain('withheld');
    expectNoToken(pr);
  });

  /** A branch whose config.yaml points the folder's source elsewhere, checked out in the test repository. */
  function repointedCheckout(branch: string): string {
    repo.git('checkout', '-q', '-B', branch, 'origin/main');
    const configPath = join(repo.dir, 'mcp', 'pets', 'config.yaml');
    writeFileSync(
      configPath,
      readFileSync(configPath, 'utf8').replace(
        `repository: ${sourceUrl}`,
        `repository: ${server.url}/collect.git`,
      ),
    );
    repo.commit('point the source elsewhere');
    return repo.dir;
  }

  async function runOnEvent(eventName: string, workspace: string, inputs: Record<string, string>) {
    const tmp = mkdtempSync(join(tmpdir(), 'svc-action-source-token-event-'));
    // What pull_request_target and issue_comment carry: the pull request, not its checked-out code.
    writeFileSync(join(tmp, 'event.json'), JSON.stringify({ issue: { number: 7 } }));
    return run({
      GITHUB_EVENT_NAME: eventName,
      GITHUB_EVENT_PATH: join(tmp, 'event.json'),
      GITHUB_REF: 'refs/heads/main',
      GITHUB_WORKSPACE: workspace,
      'INPUT_SOURCE-TOKEN': TOKEN,
      ...inputs,
    });
  }

  for (const [eventName, inputs] of [
    ['pull_request_target', { INPUT_MODE: 'check' }],
    ['issue_comment', { INPUT_MODE: 'auto' }],
    ['pull_request', { INPUT_MODE: 'merge' }],
  ] as const)
    it(`${inputs.INPUT_MODE} mode on ${eventName}: a checked-out pull request that points the folder elsewhere does not get the token`, async () => {
      const workspace = repointedCheckout(`collect-${eventName}`);
      const before = originHead();
      const seen = server.requests.length;
      const run = await runOnEvent(eventName, workspace, inputs);
      expect(run.result.mode).toBe(inputs.INPUT_MODE === 'merge' ? 'merge' : 'check');
      const asked = server.requests.slice(seen);
      expect(asked.some((r) => r.path.startsWith('/collect.git/'))).toBe(true);
      expect(asked.every((r) => r.authorization === undefined)).toBe(true);
      const error = run.result.results[0]?.error ?? '';
      expect(error).toContain(`${server.url}/collect.git needs credentials`);
      expect(error).toContain(`withheld here: the ${eventName} event`);
      expect(error).toContain('mode: pull_request');
      expect(run.lines.some((l) => l.startsWith('::warning::') && l.includes('source-token withheld'))).toBe(
        true,
      );
      expect(originHead()).toBe(before);
      expectNoToken(run);
    });

  for (const eventName of ['push', 'workflow_dispatch'])
    it(`check mode on ${eventName}: the token is sent to the folder's source`, async () => {
      const seen = server.requests.length;
      const run = await runOnEvent(eventName, checkout(), { INPUT_MODE: 'check' });
      expect(run.result.mode).toBe('check');
      expect(run.result.results[0]?.error).toBeUndefined();
      expect(run.result.results[0]?.reimport?.status).toBe('complete');
      expect(server.requests.slice(seen).some((r) => r.authorization === BASIC)).toBe(true);
      expect(run.lines.some((l) => l.includes('withheld'))).toBe(false);
      expectNoToken(run);
    });
});
