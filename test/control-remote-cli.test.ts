/**
 * The CLI in CI against the control service: `svc export --remote` and `svc import --remote`,
 * the built CLI spawned with a workspace token in SVC_TOKEN, against `svc control`'s app
 * listening on 127.0.0.1 on the embedded store, serving a real git repository registered by path.
 * Refusals (free plan, unpublished, unknown server, no or wrong token) print the service's own
 * message and the URL; the token is never printed nor written.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_TRAILER } from '../action/src/merge-mode.js';
import { type RunningControl, startControl } from '../control/index.js';
import { createServerRepo, FOLDER, petstore, type ServerRepo } from '../control/testing/server-repo.js';
import { ensureBuilt, runSvc, type SpawnedRun } from './helpers/built-cli.js';
import { svc } from './helpers/run-cli.js';
import { startTestControl } from './helpers/control-service.js';

let repo: ServerRepo;
let control: RunningControl;
let data: string;
let work: string;
let pat: string;
const runs: SpawnedRun[] = [];

/** Resolves when `ok` holds, looking every 20 ms for at most 30 s. */
async function until(what: string, ok: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const api = (path: string, init: RequestInit & { token?: string } = {}) => {
  const headers = new Headers(init.headers);
  const token = init.token ?? pat;
  if (token) headers.set('authorization', `Bearer ${token}`);
  if (init.body) headers.set('content-type', 'application/json');
  return fetch(`${control.url}${path}`, { ...init, headers });
};

/** The built CLI, with the service's URL and the token in the environment unless `env` says. */
async function cli(
  args: string[],
  env: Record<string, string> = {},
  onStdout?: (stdout: string) => void,
): Promise<SpawnedRun> {
  const run = await runSvc(args, {
    cwd: work,
    env: { SVC_TOKEN: pat, SVC_CONTROL_URL: control.url, ...env },
    ...(onStdout ? { onStdout } : {}),
  });
  runs.push(run);
  return run;
}

/** Every file under `dir`, by its path relative to `dir` with `/`. */
function filesUnder(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const full = join(dir, name);
    if (statSync(full).isFile()) out[name.split('\\').join('/')] = readFileSync(full, 'utf8');
  }
  return out;
}

/** The server folder as committed on main in the work tree, minus the import bookkeeping. */
function committedFolder(): Record<string, string> {
  const listed = execFileSync('git', ['ls-files', FOLDER], { cwd: repo.repo.dir, encoding: 'utf8' });
  const out: Record<string, string> = {};
  for (const file of listed.split('\n').filter(Boolean)) {
    const rel = file.slice(FOLDER.length + 1);
    if (!rel.startsWith('.svc/')) out[rel] = readFileSync(join(repo.repo.dir, file), 'utf8');
  }
  return out;
}

function setPublished(published: boolean): void {
  const config = readFileSync(join(repo.repo.dir, FOLDER, 'config.yaml'), 'utf8');
  const next = config.replace(/published: (true|false)/, `published: ${published}`);
  expect(next).not.toBe(config);
  repo.push({ [`${FOLDER}/config.yaml`]: next }, published ? 'publish pets' : 'unpublish pets');
}

beforeAll(async () => {
  const built = ensureBuilt();
  repo = await createServerRepo();
  work = mkdtempSync(join(tmpdir(), 'svc-remote-cli-'));
  ({ data, pat, control } = await startTestControl('svc-control-remote-', {
    logger: { log() {} },
  }));
  const registered = await api('/v1/servers', {
    method: 'POST',
    body: JSON.stringify({ repository: repo.bare, branch: 'main', path: FOLDER }),
  });
  expect(registered.status).toBe(201);
  await built;
}, 300_000);

afterAll(async () => {
  await control?.close();
  repo?.cleanup();
  rmSync(data, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('svc export --remote', () => {
  it('prints the published export as JSON, the same as a local export of the committed folder', async () => {
    const remote = await cli(['export', '--remote', 'pets', '--json']);
    expect(remote.stderr).toBe('');
    expect(remote.code).toBe(0);
    const local = await cli(['export', join(repo.repo.dir, FOLDER), '--json']);
    expect(local.code).toBe(0);
    const exported = JSON.parse(remote.stdout) as { files: Record<string, string> };
    expect(exported).toEqual(JSON.parse(local.stdout));
    expect(exported.files).toEqual(committedFolder());
  });

  it('writes the folder with --out: the folder in the repository minus .svc/', async () => {
    const out = join(work, 'exported');
    const run = await cli(['export', '--remote', 'pets', '--out', out]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const expected = committedFolder();
    expect(run.stdout).toBe(`Exported ${Object.keys(expected).length} files to ${out}\n`);
    expect(filesUnder(out)).toEqual(expected);
    // --control names the service when SVC_CONTROL_URL is not set.
    const flagged = await cli(['export', '--remote', 'pets', '--control', control.url, '--json'], {
      SVC_CONTROL_URL: '',
    });
    expect(flagged.code).toBe(0);
    expect(JSON.parse(flagged.stdout)).toEqual({ server: expect.any(Object), files: expected });
  });

  it('the service answers the export with a strong ETag and 304, like the snapshot', async () => {
    const first = await api('/v1/servers/pets/export');
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect((await api('/v1/servers/pets/export', { headers: { 'if-none-match': etag! } })).status).toBe(304);
  });

  it('on the free plan: 403 with the service message and the URL', async () => {
    expect(
      (await api('/v1/workspace/plan', { method: 'PUT', body: JSON.stringify({ plan: 'free' }) })).status,
    ).toBe(200);
    try {
      const run = await cli(['export', '--remote', 'pets', '--json']);
      expect(run.code).toBe(3);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `error: CONTROL_REFUSED: ${control.url}/v1/servers/pets/export: the control service answered 403 PLAN_REQUIRED: ` +
          'the workspace is on the free plan: export and sync need the paid plan\n',
      );
    } finally {
      await api('/v1/workspace/plan', { method: 'PUT', body: JSON.stringify({ plan: 'paid' }) });
    }
  });

  it('an unpublished server: 404 NOT_PUBLISHED; an unknown server: 404 NOT_FOUND', async () => {
    setPublished(false);
    try {
      const run = await cli(['export', '--remote', 'pets', '--out', join(work, 'never')]);
      expect(run.code).toBe(3);
      expect(run.stderr).toBe(
        `error: NOT_PUBLISHED: ${control.url}/v1/servers/pets/export: the control service answered 404 NOT_PUBLISHED: ` +
          'the server pets is not published on main\n',
      );
      expect(() => statSync(join(work, 'never'))).toThrow();
    } finally {
      setPublished(true);
    }
    const unknown = await cli(['export', '--remote', 'nope', '--json']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('answered 404 NOT_FOUND: no server nope is registered');
    expect(unknown.stderr).toContain(`${control.url}/v1/servers/nope/export`);
  });

  it('no token, a wrong token or a deploy token: refused with a clear message', async () => {
    const missing = await cli(['export', '--remote', 'pets', '--json'], { SVC_TOKEN: '' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: USAGE: svc export --remote: set SVC_TOKEN to a workspace token/);
    const nowhere = await cli(['export', '--remote', 'pets', '--json'], { SVC_CONTROL_URL: '' });
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toContain('--control <url> or SVC_CONTROL_URL');

    const wrong = await cli(['export', '--remote', 'pets', '--json'], { SVC_TOKEN: 'svc_pat_wrong' });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toBe(
      `error: CONTROL_REFUSED: ${control.url}/v1/servers/pets/export: the control service answered 401 UNAUTHORIZED: ` +
        'a workspace token (Authorization: Bearer svc_pat_…) is required (is SVC_TOKEN a workspace token of this service?)\n',
    );
    const deploy = (await control.store.createDeployToken('pets', 'runtime')).token;
    const withDeploy = await cli(['export', '--remote', 'pets', '--json'], { SVC_TOKEN: deploy });
    expect(withDeploy.code).toBe(3);
    expect(withDeploy.stderr).toContain('answered 401 UNAUTHORIZED');
    expect(withDeploy.stderr).not.toContain(deploy);
    const bare = await fetch(`${control.url}/v1/servers/pets/export`);
    expect(bare.status).toBe(401);
    expect(await bare.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
  });
});

describe('svc import --remote', () => {
  it('queues a re-import and follows it from Pending to Complete; the service commits it', async () => {
    repo.push({ 'specs/petstore.yaml': petstore('v2') }, 'petstore v2');
    const before = repo.log().length;
    const run = await cli(['import', '--remote', 'pets']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^Import job [0-9a-f-]{36} for pets on ${control.url}$`));
    const statuses = lines.filter((l) => /^ {2}(Pending|Processing|Complete|Failed)\b/.test(l));
    expect(statuses[0]).toBe('  Pending');
    expect(statuses.at(-1)).toMatch(/^ {2}Complete \(committed [0-9a-f]{12}\)$/);
    expect(statuses.every((s) => !s.includes('Failed'))).toBe(true);
    // The import's checklist and its per-endpoint report follow, as `svc import` prints them.
    expect(run.stdout).toMatch(/Complete \(committed [0-9a-f]{12}\)\n( {2}✓ .+\n)+\S/);
    const log = repo.log();
    expect(log).toHaveLength(before + 1);
    expect(log[0]).toMatch(/^chore\(mcp\): re-import API descriptions\n\n- mcp\/pets: /);
    expect(log[0]).toContain(IMPORT_TRAILER);
    const jobs = (await (await api('/v1/servers/pets/imports')).json()) as {
      jobId: string;
      trigger: string;
    }[];
    expect(run.stdout).toContain(jobs[0]!.jobId);
    expect(jobs[0]!.trigger).toBe('manual');
  });

  it('a failed job: the failed step and the error, exit 3; --json prints the job', async () => {
    repo.push({ 'specs/petstore.yaml': 'openapi: 3.0.3\npaths: [\n' }, 'a broken spec');
    try {
      const run = await cli(['import', '--remote', 'pets']);
      expect(run.code).toBe(3);
      expect(run.stdout).toMatch(
        /\n {2}Failed at import:tools\n {2}✗ Tools +← failed \(the error follows\)\n/,
      );
      expect(run.stderr).toMatch(/^error: the import job failed at step import:tools: (SOURCE_|SPEC_)/);
      expect(run.stderr).toContain(`see ${control.url}/servers/pets/imports\n`);
      const json = await cli(['import', '--remote', 'pets', '--json']);
      expect(json.code).toBe(3);
      expect(JSON.parse(json.stdout)).toMatchObject({ status: 'Failed', failedStep: 'import:tools' });
      expect(json.stderr).toContain('  Pending\n');
    } finally {
      repo.push({ 'specs/petstore.yaml': petstore('v2') }, 'fix the spec');
    }
  });

  it('gives up following after --timeout; keeps following across a restart of the service', async () => {
    const data2 = mkdtempSync(join(tmpdir(), 'svc-control-restart-'));
    const quiet = { log() {} };
    let first: RunningControl | undefined;
    let second: RunningControl | undefined;
    try {
      // The first process serves the API only, so the job stays Pending until the second's worker.
      first = await startControl({ port: 0, dataDir: data2, headRefreshMs: 0, worker: false, logger: quiet });
      const token = (await first.store.createWorkspaceToken('ci')).token;
      const { url, port } = first;
      const registered = await fetch(`${url}/v1/servers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ repository: repo.bare, branch: 'main', path: FOLDER }),
      });
      expect(registered.status).toBe(201);
      const env = { SVC_TOKEN: token, SVC_CONTROL_URL: url };
      const waited = await cli(['import', '--remote', 'pets', '--timeout', '1'], env);
      expect(waited.code).toBe(3);
      expect(waited.stderr).toBe(
        `error: CONTROL_TIMEOUT: ${url}/servers/pets/imports: the import job is still Pending after 1 s; it goes on on the service\n`,
      );
      let printed = '';
      const following = cli(['import', '--remote', 'pets'], env, (stdout) => {
        printed = stdout;
      });
      await until('the CLI queued a job', async () => (await first!.store.listJobs('pets')).length >= 2);
      // No worker in this process: the job waits.
      expect((await first.store.listJobs('pets'))[0]?.status).toBe('Pending');
      await first.close();
      first = undefined;
      // The CLI has found the service gone (and goes on following) before the second one starts.
      await until('the CLI to see the service gone', () => printed.includes('is not answering'));
      second = await startControl({
        port,
        dataDir: data2,
        headRefreshMs: 0,
        workerPollMs: 200,
        logger: quiet,
      });
      const run = await following;
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        '  Pending\n  (the control service is not answering; still following the job)\n',
      );
      expect(run.stdout).toMatch(/\n {2}Complete \((committed [0-9a-f]{12}|nothing to commit)\)\n/);
      expect(run.stdout).not.toContain(token);
    } finally {
      await first?.close();
      await second?.close();
      rmSync(data2, { recursive: true, force: true });
    }
  });

  it('an unknown server or a wrong token queues nothing', async () => {
    const unknown = await cli(['import', '--remote', 'nope']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain(
      `${control.url}/v1/servers/nope/imports: the control service answered 404`,
    );
    const jobs = ((await (await api('/v1/servers/pets/imports')).json()) as unknown[]).length;
    const wrong = await cli(['import', '--remote', 'pets'], { SVC_TOKEN: 'svc_pat_wrong' });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain('answered 401 UNAUTHORIZED');
    expect(((await (await api('/v1/servers/pets/imports')).json()) as unknown[]).length).toBe(jobs);
  });
});

describe('usage', () => {
  it('--remote takes no folder or source, and --control goes with --remote', async () => {
    const env = { SVC_TOKEN: pat, SVC_CONTROL_URL: control.url };
    const cases: [string[], RegExp][] = [
      [['export', '--remote', 'pets', 'mcp/pets', '--json'], /give no folder, the service has it/],
      [['export', 'mcp/pets', '--control', control.url, '--json'], /--control goes with --remote/],
      [['import', '--remote', 'pets', 'mcp/pets'], /give no folder or source/],
      [['import', '--remote', 'pets', '--openapi', 'x.yaml'], /give no folder or source/],
      [['import', '--remote', 'pets', '--allow-external-refs'], /give no folder or source/],
      [['import', 'mcp/pets', '--control', control.url], /--control and --timeout go with --remote/],
      [['import', '--remote', 'pets', '--timeout', 'soon'], /--timeout is a number of seconds/],
    ];
    const jobs = ((await (await api('/v1/servers/pets/imports')).json()) as unknown[]).length;
    for (const [argv, message] of cases) {
      const run = await svc(argv, { cwd: work, env });
      expect(run.code, argv.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
    }
    expect(((await (await api('/v1/servers/pets/imports')).json()) as unknown[]).length).toBe(jobs);
  });

  it('svc help names the remote forms and where the token and the URL come from', async () => {
    const help = async (command: string) => (await svc(['help', command], { cwd: work })).stdout;
    expect(await help('export')).toContain(
      'svc export --remote <serverId> [--control <url>] (--json | --out <dir>)',
    );
    const imports = await help('import');
    expect(imports).toContain(
      '\nsvc import --remote <serverId> [--control <url>] [--timeout <s>] [--json] asks',
    );
    for (const text of [await help('export'), imports]) {
      expect(text).toContain('SVC_TOKEN');
      expect(text).toContain('SVC_CONTROL_URL');
    }
  });
});

describe('the workspace token', () => {
  it('is in no output and no written file', () => {
    expect(runs.length).toBeGreaterThan(10);
    for (const run of runs) {
      expect(run.stdout).not.toContain(pat);
      expect(run.stderr).not.toContain(pat);
    }
    for (const text of Object.values(filesUnder(work))) expect(text).not.toContain(pat);
  });
});
