/**
 * One credential given from outside (the Action's input, a control server's source credential),
 * read through the import's source plan against real servers on loopback: a smart-HTTP git server
 * that wants Basic auth and a raw-URL server that wants a Bearer token.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../core/svc-error.js';
import { planSource } from '../import/source-reader.js';
import { givenGitAccess } from './git-given-credential.js';
import { type GitHttpServer, startGitHttpServer } from './testing/git-http-server.js';
import { makeRepo } from './testing/git-repo-fixture.js';

const TOKEN = 'given_9c1f2a';
const HINT = 'the test credential';
const DOC = 'openapi: 3.0.3\ninfo: {title: T, version: "1"}\npaths: {}\n';

let root: string;
let git: GitHttpServer;
let raw: Server;
let rawUrl: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-given-cred-'));
  const repo = await makeRepo(root, 'api');
  repo.commit({ 'openapi.yaml': DOC });
  git = await startGitHttpServer({
    root: join(root, 'repos'),
    authorize: (a) => a === `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`,
  });
  raw = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) res.writeHead(401).end('no');
    else res.writeHead(200, { 'content-type': 'application/yaml' }).end(DOC);
  });
  await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
  rawUrl = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await git.close();
  await new Promise((r) => raw.close(r));
  await rm(root, { recursive: true, force: true });
});

const access = (token?: string, githubUrl?: string) =>
  givenGitAccess(token ? { token } : undefined, {
    hint: HINT,
    cacheDir: join(root, 'cache'),
    ...(githubUrl ? { githubUrl } : {}),
  });

async function refusal(read: Promise<unknown>): Promise<SvcError> {
  const error = await read.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SvcError);
  return error as SvcError;
}

const gitSource = () => ({
  kind: 'git' as const,
  provider: 'git' as const,
  repository: `${git.url}/api.git`,
  branch: 'main',
  path: 'openapi.yaml',
});
const rawSource = () => ({
  kind: 'git' as const,
  provider: 'raw' as const,
  rawUrlTemplate: `${rawUrl}/raw/{ref}/{path}`,
  branch: 'main',
  path: 'openapi.yaml',
});

describe('a given credential', () => {
  it('reads a git repository with Basic auth; without it, names the URL and the hint', async () => {
    expect((await planSource(gitSource(), { dir: root, git: access(TOKEN) }).read()).document.text).toBe(DOC);
    const error = await refusal(planSource(gitSource(), { dir: root, git: access() }).read());
    expect(error.message).toBe(
      `${git.url}/api.git needs credentials; set ${HINT} to a token that can read the repository`,
    );
    const wrong = await refusal(planSource(gitSource(), { dir: root, git: access('nope') }).read());
    expect(wrong.message).toContain(`${git.url}/api.git refused the token; check ${HINT}`);
  });

  it('reads a raw URL with a Bearer token; without it, names the URL and the hint', async () => {
    expect((await planSource(rawSource(), { dir: root, git: access(TOKEN) }).read()).document.text).toBe(DOC);
    const error = await refusal(planSource(rawSource(), { dir: root, git: access() }).read());
    expect(error.message).toContain(
      `${rawUrl}/raw/main/openapi.yaml needs credentials (status 401); set ${HINT}`,
    );
    expect(error.place.url).toBe(`${rawUrl}/raw/main/openapi.yaml`);
  });

  it('reads a source naming a token connection by its own URL, and a GitHub connection from the GitHub host given', async () => {
    const viaToken = { ...gitSource(), connection: 'acme' };
    expect((await planSource(viaToken, { dir: root, git: access(TOKEN) }).read()).document.text).toBe(DOC);
    const viaGithub = {
      kind: 'git' as const,
      provider: 'github' as const,
      repository: 'api',
      connection: 'gh',
      branch: 'main',
      path: 'openapi.yaml',
    };
    expect(
      (await planSource(viaGithub, { dir: root, git: access(TOKEN, git.url) }).read()).document.text,
    ).toBe(DOC);
    const noHost = await refusal(planSource(viaGithub, { dir: root, git: access(TOKEN) }).read());
    expect(noHost.message).toContain('the github connection "gh"');
    const gitlab = { ...viaGithub, provider: 'gitlab' as const, repository: undefined, project: 'team/api' };
    const refused = await refusal(planSource(gitlab, { dir: root, git: access(TOKEN, git.url) }).read());
    expect(refused.message).toContain(`set ${HINT}`);
  });
});
