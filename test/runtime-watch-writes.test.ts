/**
 * `svc serve --watch` serves only whole versions of a folder that svc is writing (issue 17, minor:
 * "--watch served a half-written import"). While a write holds the folder's lock or journal, the
 * watcher waits and looks again; it never takes the lock itself, so an import run beside a
 * watching runtime never fails for it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { configYaml } from '../generator/testing/server-folder.js';
import { petstore } from '../control/testing/server-repo.js';
import { withFolderLock } from '../folder/index.js';
import { importFolder } from '../generator/import/index.js';
import {
  type LogRecord,
  memoryLogger,
  parseRuntimeEnv,
  type RunningRuntime,
  startRuntime,
} from '../runtime/index.js';
import type { SvcConfig } from '../schemas/types.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** A folder imported from the Petstore (v1.yaml and v2.yaml beside it); `enabled` tools turned on. */
async function petsFolder(enabled: RegExp): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'svc-watch-writes-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(join(root, 'v1.yaml'), petstore('v1'));
  writeFileSync(join(root, 'v2.yaml'), petstore('v2'));
  const dir = join(root, 'pets');
  const config = parseYaml(
    configYaml('pets', { kind: 'openapi', location: '../v1.yaml' }).replace(
      'provider: manual',
      'provider: openapi',
    ),
  ) as SvcConfig;
  const first = await importFolder({ dir, config, now: () => new Date('2026-01-01T00:00:00Z') });
  expect(first.status).toBe('complete');
  for (const path of Object.keys(first.files)) {
    if (!/^Tools\/[^/]+\.yaml$/.test(path) || !enabled.test(path)) continue;
    const file = join(dir, path);
    writeFileSync(file, readFileSync(file, 'utf8').replace('enabled: false', 'enabled: true'));
  }
  return dir;
}

/** The runtime with --watch; `served` gets what it serves after each reload. */
async function watching(dir: string) {
  const served: string[] = [];
  const records: LogRecord[] = [];
  let runtime: RunningRuntime | undefined;
  const state = () => {
    const current = runtime!.store.current();
    const location = (current.folder.config.source as { location?: string }).location;
    const files = current.folder.tools.map((t) => t.file).sort();
    const listed = current.toolList.map((t) => t.name).sort();
    return `${location} | ${files.join(',')} | ${listed.join(',')}`;
  };
  const base = memoryLogger();
  const logger = {
    ...base,
    log(level: Parameters<typeof base.log>[0], event: string, fields: Record<string, unknown> = {}) {
      records.push({ level, event, ...fields } as LogRecord);
      if (event === 'config_reloaded' && runtime) served.push(state());
    },
  };
  runtime = await startRuntime({
    env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0' }),
    folderDir: dir,
    logger,
    watch: true,
    watchDebounceMs: 5,
  });
  cleanups.push(() => runtime!.close());
  return { runtime, served, records, state };
}

it('imports run while --watch serves: every version served is whole, and no import fails for it', async () => {
  const dir = await petsFolder(/./);
  const { served, state } = await watching(dir);
  const first = state();
  const failures: string[] = [];
  for (let i = 0; i < 20; i++) {
    const result = await importFolder({
      dir,
      location: i % 2 === 0 ? '../v2.yaml' : '../v1.yaml',
      now: () => new Date(Date.UTC(2026, 0, 2, 0, i)),
    });
    if (result.status !== 'complete') failures.push(result.report.summary);
  }
  expect(failures).toEqual([]);
  // The last import (v1) is what is served in the end.
  await expect.poll(() => served.at(-1)?.startsWith('../v1.yaml'), { timeout: 10_000 }).toBe(true);
  const whole = [
    '../v1.yaml | Tools/deletePet.yaml,Tools/listPets.yaml,Tools/showPetById.yaml | deletePet,listPets,showPetById',
    '../v2.yaml | Tools/createPets.yaml,Tools/deletePet.yaml,Tools/listPets.yaml,Tools/showPetById.yaml | listPets,showPetById',
  ];
  expect(whole).toContain(first);
  expect(served.filter((s) => !whole.includes(s))).toEqual([]);
}, 120_000);

it('while a writer holds the folder, --watch serves nothing of it; once it lets go, the whole change', async () => {
  const dir = await petsFolder(/^$/);
  const { served, records, state } = await watching(dir);
  const enable = (tool: string) => {
    const file = join(dir, 'Tools', `${tool}.yaml`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('enabled: false', 'enabled: true'));
  };
  await withFolderLock(dir, async () => {
    enable('listPets');
    // The watcher has seen the first change: it reloaded (what it must not) or waits.
    await expect
      .poll(() => records.some((r) => r.event === 'config_reloaded' || r.event === 'config_reload_waiting'), {
        timeout: 10_000,
      })
      .toBe(true);
    enable('showPetById');
  });
  await expect.poll(() => served.length, { timeout: 10_000 }).toBeGreaterThan(0);
  expect(served).toEqual([
    '../v1.yaml | Tools/deletePet.yaml,Tools/listPets.yaml,Tools/showPetById.yaml | listPets,showPetById',
  ]);
  expect(state()).toBe(served[0]);
});
