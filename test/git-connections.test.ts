/**
 * Git connections end to end: a GitHub App installation (local stand-in of the token and
 * repositories endpoints, checking the app's RS256 JWT) and a GitLab OAuth grant (local stand-in
 * of /oauth/token that rotates refresh tokens and rejects reuse), each used to import the same
 * repository from a real smart-HTTP git server.
 */
import { createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { type GitHttpServer, startGitHttpServer } from './helpers/git-http-server.js';
import { makeRepo } from '../generator/sources/testing/git-repo-fixture.js';
import { type GitlabStandIn, startGitlabStandIn } from '../generator/sources/testing/gitlab-stand-in.js';
import { svc } from './helpers/run-cli.js';
import { type StaticServer, serveRoutes } from './helpers/serve-static.js';

const SPEC = readFileSync('fixtures/specs/petstore-3.0.yaml', 'utf8');

function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[relative(dir, full)] = readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return out;
}

describe('git connections (GitHub App, GitLab OAuth)', () => {
  let root: string;
  let git: GitHttpServer;
  let github: StaticServer;
  let gitlab: GitlabStandIn;
  let env: Record<string, string>;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  /** Every secret handed out: none may appear in a folder, a log or the store in the clear. */
  const secrets: string[] = [];
  const githubTokens = new Set<string>();

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-git-conn-'));
    const repo = await makeRepo(root, 'team/api');
    await repo.copyIn('fixtures/content', 'mcp');
    repo.commit({ 'openapi.yaml': SPEC });
    git = await startGitHttpServer({
      root: join(root, 'repos'),
      authorize: (a) => {
        const [user, pass] = Buffer.from((a ?? '').replace(/^Basic /, ''), 'base64')
          .toString()
          .split(':');
        return (
          (user === 'x-access-token' && githubTokens.has(pass!)) ||
          (user === 'oauth2' && gitlab.accessTokens.has(pass!))
        );
      },
    });
    github = await serveRoutes({
      '/app/installations/42/access_tokens': (req, res) => {
        const jwt = (req.headers.authorization ?? '').replace(/^bearer /i, '');
        const [head, claims, signature] = jwt.split('.');
        const ok =
          req.method === 'POST' &&
          createVerify('RSA-SHA256')
            .update(`${head}.${claims}`)
            .verify(publicKey, signature ?? '', 'base64url') &&
          String(JSON.parse(Buffer.from(claims!, 'base64url').toString()).iss) === '1234';
        if (!ok)
          return void res
            .writeHead(401, { 'content-type': 'application/json' })
            .end('{"message":"Bad credentials"}');
        const token = `ghs_${randomBytes(12).toString('hex')}`;
        githubTokens.add(token);
        secrets.push(token);
        res
          .writeHead(201, { 'content-type': 'application/json' })
          .end(JSON.stringify({ token, expires_at: new Date(Date.now() + 3_600_000).toISOString() }));
      },
      '/installation/repositories': (req, res) => {
        const token = (req.headers.authorization ?? '').replace(/^(token|bearer) /i, '');
        if (!githubTokens.has(token)) return void res.writeHead(401).end('{}');
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            total_count: 2,
            repositories: [
              { full_name: 'team/web', private: false, default_branch: 'main' },
              { full_name: 'team/api', private: true, default_branch: 'main' },
            ],
          }),
        );
      },
    });
    gitlab = await startGitlabStandIn({
      refreshToken: 'glrt-initial-0',
      projects: [
        { path_with_namespace: 'team/api', default_branch: 'main' },
        { path_with_namespace: 'team/docs', default_branch: 'trunk' },
      ],
    });
    await writeFile(join(root, 'app.pem'), pem);
    secrets.push(pem.split('\n')[1]!, 'gl-client-secret');
    env = {
      SVC_CONFIG_DIR: join(root, 'config'),
      SVC_CACHE_DIR: join(root, 'cache'),
      SVC_GITHUB_APP_ID: '1234',
      SVC_GITHUB_APP_INSTALLATION_ID: '42',
      SVC_GITHUB_APP_PRIVATE_KEY: pem,
      SVC_GITLAB_REFRESH_TOKEN: 'glrt-initial-0',
      SVC_GITLAB_CLIENT_SECRET: 'gl-client-secret',
    };
  });

  afterAll(async () => {
    await Promise.all([git.close(), github.close(), gitlab.close()]);
    await rm(root, { recursive: true, force: true });
  });

  test('connect github checks the installation, keeps the key sealed, lists it and its repositories', async () => {
    const connected = await svc(['git', 'connect', 'github', '--api-url', github.url, '--git-url', git.url], {
      cwd: root,
      env,
    });
    expect(connected.stderr).toBe('');
    expect(connected.stdout).toBe('Connected github-42 (github).\n');
    const listed = await svc(['git', 'connections', '--json'], { cwd: root, env });
    expect(JSON.parse(listed.stdout)).toEqual([
      { id: 'github-42', provider: 'github', app: '1234', installation: '42', api: github.url },
    ]);
    const repos = await svc(['git', 'repos'], { cwd: root, env });
    expect(repos.stdout).toBe('team/api  (private)\nteam/web\n');
    for (const file of ['git-connections.json', 'secret.key'])
      expect(statSync(join(root, 'config', file)).mode & 0o777).toBe(0o600);
  });

  test('a wrong key is refused and nothing is stored', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs1',
      format: 'pem',
    });
    const refused = await svc(
      ['git', 'connect', 'github', '--id', 'bad', '--api-url', github.url, '--git-url', git.url],
      { cwd: root, env: { ...env, SVC_GITHUB_APP_PRIVATE_KEY: other.toString() } },
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/HTTP 401/);
    const listed = await svc(['git', 'connections', '--json'], { cwd: root, env });
    expect(JSON.parse(listed.stdout).map((c: { id: string }) => c.id)).toEqual(['github-42']);
  });

  test('connect gitlab rotates the refresh token at once and keeps only the new one', async () => {
    const connected = await svc(
      [
        'git',
        'connect',
        'gitlab',
        '--instance',
        gitlab.url,
        '--client-id',
        'app-1',
        '--id',
        'gitlab-local',
        '--git-url',
        git.url,
      ],
      { cwd: root, env },
    );
    expect(connected.stderr).toBe('');
    expect(gitlab.latestRefreshToken()).not.toBe('glrt-initial-0');
    // The first token is spent: the stand-in refuses it from now on.
    const reuse = await fetch(`${gitlab.url}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: 'glrt-initial-0',
        client_id: 'app-1',
      }),
    });
    expect(reuse.status).toBe(400);
  });

  test('git repos lists the GitLab projects of a GitLab connection, through the rotating refresh token', async () => {
    const before = gitlab.latestRefreshToken();
    const several = await svc(['git', 'repos'], { cwd: root, env });
    expect(several.code).toBe(2);
    expect(several.stderr).toContain('name one with --connection (github-42, gitlab-local)');
    const repos = await svc(['git', 'repos', '--connection', 'gitlab-local'], { cwd: root, env });
    expect(repos.stderr).toBe('');
    expect(repos.stdout).toBe('team/api\nteam/docs\n');
    const json = await svc(['git', 'repos', '--connection', 'gitlab-local', '--json'], { cwd: root, env });
    expect(JSON.parse(json.stdout)).toEqual([
      { fullName: 'team/api', defaultBranch: 'main' },
      { fullName: 'team/docs', defaultBranch: 'trunk' },
    ]);
    // Each listing spent the stored refresh token once and kept the new one.
    expect(gitlab.latestRefreshToken()).not.toBe(before);
    expect(gitlab.live).toEqual(new Set([gitlab.latestRefreshToken()]));
  });

  test('the same repository through each connection gives the same folder apart from the source record', async () => {
    const common = [
      '--name',
      'Pets',
      '--server-id',
      'pets',
      '--git',
      'team/api',
      '--ref',
      'main',
      '--path',
      'openapi.yaml',
      '--content',
      'mcp',
    ];
    const viaGithub = await svc(['init', 'gh', ...common, '--connection', 'github-42'], { cwd: root, env });
    expect(viaGithub.stderr).not.toMatch(/^error/m);
    expect(viaGithub.code).toBe(0);
    const before = gitlab.latestRefreshToken();
    const viaGitlab = await svc(['init', 'gl', ...common, '--connection', 'gitlab-local'], {
      cwd: root,
      env,
    });
    expect(viaGitlab.stderr).not.toMatch(/^error/m);
    expect(viaGitlab.code).toBe(0);
    expect(gitlab.latestRefreshToken()).not.toBe(before);
    // A second import rotates again: each read spends the stored refresh token once.
    const again = await svc(['import', 'gl'], { cwd: root, env });
    expect(again.code).toBe(0);
    expect(gitlab.spent).toEqual(['glrt-initial-0']);

    const gh = tree(join(root, 'gh'));
    const gl = tree(join(root, 'gl'));
    expect(parse(gh['config.yaml']!).source).toMatchObject({
      provider: 'github',
      repository: 'team/api',
      connection: 'github-42',
    });
    expect(parse(gl['config.yaml']!).source).toMatchObject({
      provider: 'gitlab',
      project: 'team/api',
      connection: 'gitlab-local',
    });
    const strip = (files: Record<string, string>) =>
      Object.fromEntries(
        // The history and the fingerprint of gl's second, no-op import are bookkeeping of each folder's own runs.
        Object.entries(files).filter(
          ([p]) => p !== 'config.yaml' && !p.startsWith('.svc/history/') && p !== '.svc/unchanged.json',
        ),
      );
    expect(strip(gh)).toEqual(strip(gl));
    expect(Object.keys(gh).some((p) => p.startsWith('Skills/'))).toBe(true);
  });

  test('no secret is written in the clear: folders, config directory, cache, any output', async () => {
    const outputs: string[] = [];
    for (const argv of [
      ['import', 'gh'],
      ['import', 'gl'],
      ['diff', 'gl'],
      ['git', 'connections'],
      ['git', 'repos', '--connection', 'github-42'],
      ['git', 'repos', '--connection', 'gitlab-local'],
    ]) {
      const run = await svc(argv, { cwd: root, env });
      expect(run.code, argv.join(' ')).toBe(0);
      outputs.push(run.stdout, run.stderr);
    }
    const allSecrets = [...secrets, ...gitlab.secrets];
    for (const text of outputs) for (const secret of allSecrets) expect(text.includes(secret)).toBe(false);
    const files = {
      ...tree(join(root, 'gh')),
      ...tree(join(root, 'gl')),
      ...tree(join(root, 'config')),
      ...tree(join(root, 'cache')),
    };
    for (const [path, text] of Object.entries(files))
      for (const secret of allSecrets) expect(text.includes(secret), `${path} holds a secret`).toBe(false);
  });

  test('disconnect: the folder keeps its document; the next import says the connection is gone', async () => {
    const gone = await svc(['git', 'disconnect', 'github-42'], { cwd: root, env });
    expect(gone.code).toBe(0);
    const document = await readFile(join(root, 'gh/Tools/openapi.json'), 'utf8').catch(() => '');
    const failed = await svc(['import', 'gh'], { cwd: root, env });
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toMatch(/connection "github-42" is gone/);
    expect(await readFile(join(root, 'gh/Tools/openapi.json'), 'utf8').catch(() => '')).toBe(document);
    const listed = await svc(['git', 'connections'], { cwd: root, env });
    expect(listed.stdout).toMatch(/^gitlab-local {2}provider=gitlab/);
  });

  test('connect gitlab without a refresh token runs the device flow and keeps the grant it gets', async () => {
    const { SVC_GITLAB_REFRESH_TOKEN: _, ...noRefresh } = env;
    const connected = await svc(
      [
        'git',
        'connect',
        'gitlab',
        '--instance',
        gitlab.url,
        '--client-id',
        'app-1',
        '--id',
        'gl-device',
        '--git-url',
        git.url,
      ],
      { cwd: root, env: noRefresh },
    );
    expect(connected.stderr).toContain(`open ${gitlab.url}/oauth/device and enter the code WXYZ-1234`);
    expect(connected.code).toBe(0);
    expect(gitlab.polls).toBe(3);
    const made = await svc(
      [
        'init',
        'dev',
        '--name',
        'Pets',
        '--git',
        'team/api',
        '--ref',
        'main',
        '--path',
        'openapi.yaml',
        '--connection',
        'gl-device',
      ],
      { cwd: root, env: noRefresh },
    );
    expect(made.code).toBe(0);
    for (const [path, text] of Object.entries(tree(join(root, 'config'))))
      for (const secret of [...secrets, ...gitlab.secrets]) expect(text.includes(secret), path).toBe(false);
  });
});
