/**
 * `svc import` of the bundled CLI, killed with SIGKILL at a random moment, 30 times: then `svc
 * validate` (a command that opens the folder) must find it wholly old or wholly new, with nothing
 * left beside it. A third of the runs are killed at a random time after the start; the others
 * as the swap begins (when its directory of old entries or its journal appears), so the kill
 * lands in or near the swap itself.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, watch } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type TreeSnapshot, treeSnapshot } from '../folder/testing/tree-snapshot.js';
import { bundleEntry } from './helpers/bundle-entry.js';
import { svc as runSvcInProcess } from './helpers/run-cli.js';

const RUNS = 30;
const fixtures = resolve('fixtures/reimport');
let base: string;
let cli: string;
let template: string;
let oldTree: TreeSnapshot;
let newTree: TreeSnapshot;
let fullMs = 0;

function svc(cwd: string, ...argv: string[]): { child: ChildProcess; exit: Promise<number | string | null> } {
  const child = spawn(process.execPath, [cli, ...argv], {
    cwd,
    // The bundle's own require() calls (the compiled OpenAPI validators) resolve from here.
    env: { PATH: process.env.PATH ?? '', NODE_PATH: resolve('node_modules') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exit = new Promise<number | string | null>((done) =>
    child.once('exit', (code, signal) => done(signal ?? (code === 0 ? 0 : `${code}: ${err}`))),
  );
  return { child, exit };
}

/** History records carry the wall-clock time of the run; everything else must match exactly. */
function timeless(tree: TreeSnapshot): TreeSnapshot {
  const out: TreeSnapshot = {};
  for (const [path, value] of Object.entries(tree))
    out[path] = /^\.svc\/history\/[^/]+\.json$/.test(path) ? 'a history record' : value;
  return out;
}

async function freshCopy(name: string): Promise<string> {
  const dir = join(base, name, 'pets');
  await mkdir(join(base, name));
  await cp(template, dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'svc-import-crash-'));
  cli = join(base, 'svc.mjs');
  await bundleEntry('cli/main.ts', cli);
  await mkdir(join(base, 'template'));
  const init = svc(
    join(base, 'template'),
    'init',
    'pets',
    '--name',
    'Pets',
    '--openapi',
    join(fixtures, 'petstore-v1.yaml'),
  );
  expect(await init.exit).toBe(0);
  template = join(base, 'template', 'pets');
  oldTree = await treeSnapshot(template);

  const dir = await freshCopy('reference');
  const started = Date.now();
  const full = svc(join(dir, '..'), 'import', 'pets', '--openapi', join(fixtures, 'petstore-v2.yaml'));
  expect(await full.exit).toBe(0);
  fullMs = Date.now() - started;
  newTree = await treeSnapshot(dir);
  expect(timeless(newTree)).not.toEqual(timeless(oldTree));
}, 120_000);

afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

test(`svc import killed at random ${RUNS} times: svc validate then finds the folder wholly old or wholly new`, async () => {
  const seen = { old: 0, new: 0, midSwap: 0 };
  for (let i = 0; i < RUNS; i++) {
    const dir = await freshCopy(`run-${i}`);
    const parent = join(dir, '..');
    const run = svc(parent, 'import', 'pets', '--openapi', join(fixtures, 'petstore-v2.yaml'));
    let journaled = false;
    const kill = () => {
      if (run.child.exitCode !== null) return;
      journaled = readdirSyncSafe(parent).includes('.pets.svc-swap');
      run.child.kill('SIGKILL');
    };
    const watcher = watch(parent);
    if (i % 3 === 0) {
      setTimeout(kill, Math.random() * fullMs * 1.1);
    } else {
      // The old-entries directory is made just before the swap, the journal (.tmp, then renamed)
      // just after: a kill a random 0-3 ms after the first, or at once on the second.
      const trigger = i % 3 === 1 ? /^\.pets\.svc-old-/ : /^\.pets\.svc-swap$/;
      watcher.on('change', (_event, name) => {
        if (!trigger.test(String(name))) return;
        if (i % 3 === 1) setTimeout(kill, Math.random() * 3);
        else kill();
      });
      setTimeout(kill, fullMs * 3);
    }
    await run.exit;
    watcher.close();
    if (journaled) seen.midSwap++;

    // svc validate in this process (the same command; only the import is killed, so it need
    // not be a process of its own, and 30 node start-ups are saved).
    const check = await runSvcInProcess(['validate', 'pets'], { cwd: parent });
    expect(check.code, `run ${i}: ${check.stderr}`).toBe(0);
    const tree = timeless(await treeSnapshot(dir));
    expect([timeless(oldTree), timeless(newTree)], `run ${i}`).toContainEqual(tree);
    if (isEqual(tree, timeless(newTree))) seen.new++;
    else seen.old++;
    // A kill once the journal is written is finished forward.
    if (journaled) expect(tree, `run ${i}`).toEqual(timeless(newTree));
    expect(await readdir(parent), `run ${i}`).toEqual(['pets']);
  }
  // What the runs covered, for the record (the kill times are random).
  console.log(
    `import-crash: ${RUNS} kills, ${seen.old} old, ${seen.new} new, ${seen.midSwap} during the swap`,
  );
  expect(seen.old + seen.new).toBe(RUNS);
}, 600_000);

function isEqual(a: TreeSnapshot, b: TreeSnapshot): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function readdirSyncSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
