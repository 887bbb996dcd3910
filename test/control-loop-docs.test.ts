/**
 * The control loop as the README shows it, run for real: the README's block (the same as
 * docs/control-service.md's) in a repository whose folder is committed, with a bare repository
 * standing in for the remote. Only what cannot be the same here is replaced: `npx svc` by the
 * built CLI, the port 3100 by a free one (SVC_CONTROL_PORT and the URLs), the GitHub URL by the bare repository. Then a merge
 * (enable a tool, commit, push) must reach the runtime in sync mode without a restart.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI, ensureBuilt, REPO_ROOT } from './helpers/built-cli.js';
import { connectClient } from './helpers/mcp-client.js';

function loopBlock(file: string): string {
  const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
  const block = /```sh\n((?:(?!```)[\s\S])*?npx svc control serve &[\s\S]*?)```/.exec(text)?.[1];
  if (!block) throw new Error(`${file} has no control loop block`);
  return block;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

let root: string;
let work: string;
let loop: ChildProcess | undefined;
let output = '';
const gitEnv = {
  GIT_AUTHOR_NAME: 'Ada',
  GIT_AUTHOR_EMAIL: 'ada@example.test',
  GIT_COMMITTER_NAME: 'Ada',
  GIT_COMMITTER_EMAIL: 'ada@example.test',
};
const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: work,
    env: { ...process.env, ...gitEnv },
    encoding: 'utf8',
    stdio: 'pipe',
  });
const svc = (...args: string[]) =>
  execFileSync(process.execPath, [BUILT_CLI, ...args], { cwd: work, stdio: 'pipe' });

function enable(tool: string): void {
  const file = path.join(work, 'mcp/petstore/Tools', `${tool}.yaml`);
  writeFileSync(file, readFileSync(file, 'utf8').replace(/^enabled: false$/m, 'enabled: true'));
}

async function toolNames(url: string): Promise<string[]> {
  // A new session each time: a session keeps the config it started with.
  const client = await connectClient(url, 'control-loop-docs');
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  await ensureBuilt();
  root = mkdtempSync(path.join(tmpdir(), 'svc-control-loop-'));
  const bare = path.join(root, 'apis.git');
  work = path.join(root, 'apis');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
  mkdirSync(work);
  git('init', '-q', '-b', 'main');
  svc(
    'init',
    'mcp/petstore',
    '--name',
    'Petstore',
    '--openapi',
    path.join(REPO_ROOT, 'fixtures/specs/petstore-3.0.yaml'),
  );
  enable('listPets');
  git('add', '.');
  git('commit', '-qm', 'petstore');
  git('remote', 'add', 'origin', bare);
  git('push', '-q', '-u', 'origin', 'main');

  const port = await freePort();
  const script = loopBlock('README.md')
    .replaceAll('npx svc', `node '${BUILT_CLI}'`)
    .replaceAll('127.0.0.1:3100', `127.0.0.1:${port}`)
    .replaceAll('https://github.com/acme/apis.git', bare);
  loop = spawn('bash', ['-e', '-c', script], {
    cwd: work,
    detached: true,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: path.join(root, 'home'),
      MCP_RUNTIME_PORT: '0',
      SVC_CONTROL_PORT: String(port),
      SVC_SYNC_INTERVAL: '10',
      ...gitEnv,
    },
  });
  loop.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  loop.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
}, 180_000);

afterAll(() => {
  if (loop?.pid) {
    try {
      process.kill(-loop.pid, 'SIGTERM');
    } catch {}
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("the README's control loop", () => {
  it('is the same block in docs/control-service.md', () => {
    expect(loopBlock('docs/control-service.md')).toBe(loopBlock('README.md'));
  });

  it('runs as written: the runtime follows the published folder, and then a merge', {
    timeout: 120_000,
  }, async () => {
    await expect
      .poll(() => /MCP server listening on (http:\/\/\S+)/.exec(output)?.[1], {
        timeout: 60_000,
        interval: 200,
      })
      .toBeDefined();
    const url = /MCP server listening on (http:\/\/\S+)/.exec(output)![1]!;
    expect(await toolNames(url)).toEqual(['listPets']);

    // A merge: enable a second tool on the branch.
    enable('createPet');
    git('commit', '-qam', 'enable createPet');
    git('push', '-q');
    await expect
      .poll(() => toolNames(url), { timeout: 60_000, interval: 500 })
      .toEqual(['createPet', 'listPets']);
    expect(output).toMatch(/"sync_updated"/);
    expect(output).not.toMatch(/"sync_failed"|"sync_forbidden"/);
  });
});
