/**
 * kill -9 of a real writer process at EVERY step of a re-write, then each way a command opens a
 * folder (readFolder, the CLI's openFolder, the runtime's loader): the folder is byte-for-byte
 * the old tree or the new one (every file, mode and directory, .git and user files included),
 * and nothing is left beside it. Also: a live writer's lock blocks another writer with an error
 * naming the lock and the holder, and a reader waits out a live swap rather than read half of it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openFolder } from '../folder/open-folder.js';
import { settleFolder } from '../folder/settle-folder.js';
import { type FolderFiles, readFolder, writeFolder } from '../folder/index.js';
import { sampleFolderModel, sampleTool } from '../folder/testing/sample-folder.js';
import { type TreeSnapshot, treeSnapshot } from '../folder/testing/tree-snapshot.js';
import { renderFolder } from '../generator/render/index.js';
import { loadFolderDir } from '../runtime/load-source.js';
import { bundleEntry } from './helpers/bundle-entry.js';

let base: string;
let writer: string;
let template: string;
let v2: FolderFiles;
let oldTree: TreeSnapshot;
let newTree: TreeSnapshot;
let steps: string[];
let runs = 0;

function run(job: object): {
  child: ChildProcess;
  lines: string[];
  exit: Promise<NodeJS.Signals | number | null>;
} {
  const file = join(base, `job-${++runs}.json`);
  // The job is on disk before the child starts: written after the spawn, a child that starts
  // fast (or a test process slowed by load) could read half of it.
  writeFileSync(file, JSON.stringify(job));
  const child = spawn(process.execPath, [writer, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  child.stdout!.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
  const exit = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  return { child, lines, exit };
}

/** A copy of the old folder in its own parent, so its siblings can be checked. */
async function freshCopy(name: string): Promise<string> {
  const parent = join(base, name);
  await mkdir(parent);
  await cp(template, join(parent, 'server'), { recursive: true });
  return join(parent, 'server');
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'svc-crash-'));
  writer = join(base, 'step-writer.mjs');
  await bundleEntry('folder/testing/step-writer.ts', writer);

  // The old folder: a rendered server plus what a user keeps in it.
  template = join(base, 'template', 'server');
  await writeFolder(template, {
    ...renderFolder(sampleFolderModel()),
    '.svc/history/0001.json': '{"seq":1}\n',
  });
  await writeFile(join(template, '.env'), 'SVC_UPSTREAM_SECRET=do-not-lose', { mode: 0o600 });
  await writeFile(join(template, 'notes.md'), 'my notes');
  await mkdir(join(template, '.git'));
  await writeFile(join(template, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  oldTree = await treeSnapshot(template);

  // The new one: tools added and changed, a doc and the widgets gone, user files written too.
  const model = sampleFolderModel();
  model.tools.push({ key: 'deleteOrder', file: 'Tools/deleteOrder.yaml', tool: sampleTool('deleteOrder') });
  model.docs.pop();
  model.widgets = [];
  model.tools[0]!.tool = { ...model.tools[0]!.tool, widget: undefined, enabled: true };
  v2 = {
    ...renderFolder(model),
    '.svc/history/0001.json': '{"seq":1}\n',
    '.svc/history/0002.json': '{"seq":2}\n',
    'notes.md': 'rewritten notes',
    'plans/2027/q1.md': 'a new file in new directories',
  };

  // The complete write, run by the same child: its steps, and the new tree.
  const probe = await freshCopy('probe');
  const full = run({ dir: probe, files: v2 });
  expect(await full.exit).toBe(0);
  steps = full.lines.filter((l) => l !== 'written');
  newTree = await treeSnapshot(probe);
}, 60_000);

afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

const openers: Record<string, (dir: string) => Promise<unknown>> = {
  readFolder: (dir) => readFolder(dir),
  'cli openFolder': (dir) => openFolder('/', dir),
  'runtime loadFolderDir': (dir) => loadFolderDir(dir),
};

describe('kill -9 during a folder write', () => {
  test('the writer has the steps this test kills at', () => {
    expect(steps).toEqual(
      expect.arrayContaining([
        'journal',
        'set aside Tools',
        'swap Tools',
        'swap notes.md',
        'commit',
        'clean',
      ]),
    );
    expect(steps.filter((s) => s.startsWith('swap ')).length).toBeGreaterThan(5);
    expect(newTree).not.toEqual(oldTree);
    expect(newTree['plans/2027/q1.md']).toBeDefined();
    expect(newTree['.env']).toBe(oldTree['.env']);
  });

  test('at every step, each command that opens the folder sees it wholly old or wholly new', async () => {
    const names = Object.keys(openers);
    const outcomes: string[] = [];
    for (const [i, step] of steps.entries()) {
      const dir = await freshCopy(`kill-${i}`);
      const { exit } = run({ dir, files: v2, at: step, mode: 'kill' });
      expect(await exit, step).toBe('SIGKILL');
      const opener = names[i % names.length]!;
      await openers[opener]!(dir);
      const tree = await treeSnapshot(dir);
      expect([oldTree, newTree], `${step} → ${opener}`).toContainEqual(tree);
      expect(await readdir(join(dir, '..')), `${step} → ${opener}`).toEqual(['server']);
      // Before the journal nothing in the folder was touched; from the journal on, it is finished.
      const journaled = steps.indexOf('journal');
      expect(tree, step).toEqual(i <= journaled ? oldTree : newTree);
      outcomes.push(`${step}: ${i <= journaled ? 'old' : 'new'}`);
    }
    expect(outcomes.length).toBe(steps.length);
  }, 120_000);

  test('killed while undoing its own failure (a "back" journal), every step ends wholly old', async () => {
    const journaled = steps.indexOf('journal');
    const after = steps.slice(journaled + 1).filter((s) => s !== 'clean');
    expect(after.length).toBeGreaterThan(5);
    for (const [i, step] of after.entries()) {
      const dir = await freshCopy(`back-${i}`);
      const { exit } = run({ dir, files: v2, at: step, mode: 'kill' });
      expect(await exit, step).toBe('SIGKILL');
      // As the writer leaves it when a step fails and it turns to undo what it moved.
      const journal = join(dir, '..', '.server.svc-swap');
      const record = JSON.parse(await readFile(journal, 'utf8'));
      await writeFile(journal, JSON.stringify({ ...record, state: 'back' }));
      await readFolder(dir);
      expect(await treeSnapshot(dir), step).toEqual(oldTree);
      expect(await readdir(join(dir, '..')), step).toEqual(['server']);
    }
  }, 120_000);

  test('the next write finishes an interrupted one first, then writes', async () => {
    const dir = await freshCopy('next-write');
    const { exit } = run({ dir, files: v2, at: 'swap Tools', mode: 'kill' });
    expect(await exit).toBe('SIGKILL');
    const notices: string[] = [];
    await writeFolder(dir, { ...v2, 'notes.md': 'third' }, { onNotice: (m) => notices.push(m) });
    expect(notices.join('\n')).toMatch(/took over the stale lock .*no longer running/);
    expect(notices.join('\n')).toMatch(/finished an interrupted swap/);
    const tree = await treeSnapshot(dir);
    expect({ ...tree, 'notes.md': newTree['notes.md'] }).toEqual(newTree);
    expect(await readdir(join(dir, '..'))).toEqual(['server']);
  });
});

describe('kill -9 during a write of several folders at once (svc init --app-builder: an app folder and its branch folders)', () => {
  const branch = (name: string): FolderFiles => ({
    [`${name}/config.yaml`]: `schemaVersion: 1\nserver: ${name}\n`,
    [`${name}/Tools/.gitkeep`]: '',
    [`${name}/README.md`]: `# ${name}\n`,
  });
  const files = { ...branch('live'), ...branch('main') };

  test('killed between folder 1 and folder 2, opening folder 2 finds both whole', async () => {
    const parent = join(base, 'app-kill');
    const app = join(parent, 'app');
    await mkdir(app, { recursive: true });
    await writeFile(join(app, 'notes.md'), "the app folder is the user's");
    const { exit, lines } = run({ dir: app, files, at: 'swap main/config.yaml', mode: 'kill' });
    expect(await exit).toBe('SIGKILL');
    // Folder 1 is in, folder 2 is not yet.
    expect(lines).toContain('swap live/config.yaml');
    expect(existsSync(join(app, 'live', 'config.yaml'))).toBe(true);
    expect(existsSync(join(app, 'main', 'config.yaml'))).toBe(false);

    const notices: string[] = [];
    await settleFolder(join(app, 'main'), (m) => notices.push(m));
    expect(notices.join('\n')).toMatch(/took over the stale lock .*no longer running/);
    expect(notices).toContain(`${app}: finished an interrupted swap: the folder now holds the new version`);
    expect(await readFolder(join(app, 'main'))).toEqual({
      'config.yaml': 'schemaVersion: 1\nserver: main\n',
      'Tools/.gitkeep': '',
      'README.md': '# main\n',
    });
    expect(Object.keys(await readFolder(join(app, 'live'))).sort()).toEqual([
      'README.md',
      'Tools/.gitkeep',
      'config.yaml',
    ]);
    expect((await readdir(app)).sort()).toEqual(['live', 'main', 'notes.md']);
    expect(await readdir(parent)).toEqual(['app']);
  });
});

describe('a live writer', () => {
  test('its lock blocks another writer, naming the lock file and the holder', async () => {
    const dir = await freshCopy('live-lock');
    const live = run({ dir, files: v2, at: 'write config.yaml', mode: 'pause' });
    await until(() => live.lines.includes('paused'));
    try {
      const other = writeFolder(dir, { ...v2, 'notes.md': 'mine' });
      await expect(other).rejects.toMatchObject({
        code: 'WRITE_FAILED',
        message: expect.stringContaining(`another svc process (pid ${live.child.pid}, writing since `),
      });
      await expect(other).rejects.toMatchObject({
        message: expect.stringContaining(`its lock is ${join(dir, '..', '.server.svc-lock')}`),
      });
      // Before its swap the folder is whole: a reader does not wait.
      expect(await treeSnapshot(dir)).toEqual(oldTree);
    } finally {
      live.child.kill('SIGKILL');
      await live.exit;
    }
  });

  test('a reader waits out its swap instead of reading half of it, and finishes it if the writer dies', async () => {
    const dir = await freshCopy('live-swap');
    const live = run({ dir, files: v2, at: 'swap Tools', mode: 'pause' });
    await until(() => live.lines.includes('paused'));
    let settled = false;
    const read = readFolder(dir).finally(() => {
      settled = true;
    });
    // The property is an absence (the reader has not finished while the writer lives), and
    // readFolder has no hook to say it is waiting: this window is observed, not synchronised on.
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false);
    live.child.kill('SIGKILL');
    await live.exit;
    const files = await read;
    expect(files['notes.md']).toBe('rewritten notes');
    expect(await treeSnapshot(dir)).toEqual(newTree);
    expect(await readdir(join(dir, '..'))).toEqual(['server']);
  });
});

test('a reader already under way when a swap runs reads again, and sees one version', async () => {
  const dir = await freshCopy('mid-read');
  const go = join(base, 'go-mid-read');
  const live = run({ dir, files: v2, at: 'journal', mode: 'pause', resumeWhen: go });
  await until(() => live.lines.includes('paused'));
  const lock = join(dir, '..', '.server.svc-lock');
  let swapped = false;
  const files = await readFolder(dir, {
    skip: (_path, isDirectory) => {
      if (!swapped && isDirectory) {
        // Mid-read: let the writer (another process) swap, and block this reader until it is done.
        swapped = true;
        writeFileSync(go, '');
        const deadline = Date.now() + 20_000;
        const nap = new Int32Array(new SharedArrayBuffer(4));
        while (existsSync(lock) && Date.now() < deadline) Atomics.wait(nap, 0, 0, 5);
      }
      return false;
    },
  });
  expect(await live.exit).toBe(0);
  expect(swapped).toBe(true);
  expect(files).toEqual(await readFolder(join(base, 'probe', 'server')));
});

async function until(ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the writer');
    await new Promise((r) => setTimeout(r, 10));
  }
}
