/**
 * A throwaway PostgreSQL cluster on loopback for tests: initdb into a temp dir, postgres on a
 * free port, trust auth for 127.0.0.1 only. Root cannot run postgres, so as root the cluster is
 * created and run as the `postgres` user (runuser). Returns undefined, with the reason, only
 * when no PostgreSQL binaries are installed (Debian's `postgresql` package; .ci/run installs it).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PostgresCluster {
  url: string;
  stop(): Promise<void>;
}

function findBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], 'bin');
  }
  try {
    const initdb = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    return initdb ? join(initdb, '..') : undefined;
  } catch {
    return undefined;
  }
}

export function postgresMissingReason(): string | undefined {
  return findBinDir() ? undefined : 'PostgreSQL is not installed (apt-get install postgresql)';
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function startPostgres(): Promise<PostgresCluster> {
  const bin = findBinDir();
  if (!bin) throw new Error(postgresMissingReason());
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  const data = join(dir, 'data');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (cmd: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  const [initCmd, initArgs] = run(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'svc',
    '--auth=trust',
    '--no-sync',
    '-E',
    'UTF8',
  ]);
  execFileSync(initCmd, initArgs, { stdio: 'pipe' });
  const port = await freePort();
  const [pgCmd, pgArgs] = run(join(bin, 'postgres'), [
    '-D',
    data,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${dir}`,
    '-c',
    'fsync=off',
    '-c',
    'max_connections=50',
  ]);
  const child: ChildProcess = spawn(pgCmd, pgArgs, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  const url = `postgres://svc@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (/ready to accept connections/.test(log)) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`PostgreSQL did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    async stop() {
      const exited = new Promise<void>((resolve) => {
        if (child.exitCode !== null) resolve();
        else child.once('exit', () => resolve());
      });
      // runuser does not pass signals on, so ask pg_ctl for a fast shutdown.
      const [stopCmd, stopArgs] = run(join(bin, 'pg_ctl'), ['-D', data, 'stop', '-m', 'fast', '-w']);
      try {
        execFileSync(stopCmd, stopArgs, { stdio: 'pipe', timeout: 20_000 });
      } catch {
        child.kill('SIGKILL');
      }
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
