import { beforeAll, describe, expect, it } from 'vitest';
import { type FolderFiles, loadFolder, readFolder } from '../../folder/index.js';
import type { FolderModel } from '../../folder/model.js';
import { exportFolder } from '../../generator/render/index.js';
import type { SvcExport } from '../../schemas/types.js';
import { folderDigest, folderFromSnapshot } from './snapshot-folder.js';

let files: FolderFiles;
let snapshot: SvcExport;
let boot: FolderModel;

beforeAll(async () => {
  files = await readFolder('fixtures/runtime/basic');
  snapshot = exportFolder(files);
  const loaded = loadFolder(files);
  if (!loaded.ok) throw new Error('fixture does not load');
  boot = loaded.folder;
});

function reasonOf(body: unknown, id = 'echo-api'): string {
  const result = folderFromSnapshot(body, id);
  if (result.ok) throw new Error('expected a refusal');
  return result.reason;
}

describe('folderFromSnapshot', () => {
  it('loads an export into the same model the folder boots with', () => {
    const result = folderFromSnapshot(snapshot, 'echo-api');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.folder.tools.map((t) => t.key)).toEqual(boot.tools.map((t) => t.key));
    expect(folderDigest(result.folder)).toBe(folderDigest(boot));
  });

  it('renders config.yaml from server when files omit it', () => {
    const { 'config.yaml': _omitted, ...rest } = snapshot.files;
    const result = folderFromSnapshot({ server: snapshot.server, files: rest }, 'echo-api');
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.folder.config).toEqual(boot.config);
  });

  it('refuses a snapshot for another server', () => {
    const other = structuredClone(snapshot);
    other.server.server.id = 'other-api';
    expect(reasonOf(other)).toMatch(/server "other-api", this runtime serves "echo-api"/);
    expect(reasonOf(snapshot, 'mine')).toMatch(/this runtime serves "mine"/);
  });

  it('refuses a config.yaml for another server even when server names this one', () => {
    const forged = structuredClone(snapshot);
    forged.files['config.yaml'] = forged.files['config.yaml']!.replace('id: echo-api', 'id: evil-api');
    expect(reasonOf(forged)).toMatch(/evil-api|does not match/);
  });

  it('refuses a server that disagrees with files["config.yaml"]', () => {
    const mismatch = structuredClone(snapshot);
    mismatch.server.apiBaseUrl = 'https://elsewhere.example.test/api';
    expect(reasonOf(mismatch)).toMatch(/does not match its files\["config.yaml"\]/);
  });

  it('refuses bodies that are not {server, files}', () => {
    expect(reasonOf(null)).toMatch(/does not match \{server, files\}/);
    expect(reasonOf({ server: snapshot.server })).toMatch(/files/);
    expect(reasonOf([1, 2])).toMatch(/does not match/);
    expect(reasonOf({ ...snapshot, files: { ...snapshot.files, '../escape.md': 'x' } })).toMatch(
      /does not match/,
    );
  });

  it('refuses a folder that does not load, naming the file', () => {
    const broken = structuredClone(snapshot);
    broken.files['Tools/echo_get.yaml'] = 'name: [unclosed';
    expect(reasonOf(broken)).toMatch(/Tools\/echo_get\.yaml/);
  });
});

describe('folderDigest', () => {
  it('changes with what the folder serves', () => {
    const changed = structuredClone(boot);
    changed.tools[0]!.tool.description = 'changed';
    expect(folderDigest(changed)).not.toBe(folderDigest(boot));
  });
});
