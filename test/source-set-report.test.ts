/**
 * `svc source set` to a new document re-imports the folder: it must tell the user what that import
 * did exactly as `svc import` does (the checklist, the report's summary and every change, with
 * its warnings), not only the checklist.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { svc } from './helpers/run-cli.js';

const V1 = path.resolve('fixtures/reimport/petstore-v1.yaml');
const V2 = path.resolve('fixtures/reimport/petstore-v2.yaml');
let work: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'svc-source-report-'));
  const init = await svc(['init', 'a', '--name', 'Pets', '--openapi', V1], { cwd: work });
  expect(init.code).toBe(0);
  cpSync(path.join(work, 'a'), path.join(work, 'b'), { recursive: true });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

it('prints the same checklist, summary and changes as svc import of the same document', async () => {
  const set = await svc(['source', 'set', 'a', '--openapi', V2], { cwd: work });
  const imported = await svc(['import', 'b', '--openapi', V2], { cwd: work });
  expect(set.code).toBe(0);
  expect(imported.code).toBe(0);
  expect(set.stdout).toMatch(/Endpoints: 2 added, 2 removed, 7 changed \(5 breaking\)\./);
  expect(set.stdout).toContain('request-parameter-became-required');
  expect(set.stdout.replace('Importing into a', '')).toBe(imported.stdout.replace('Importing into b', ''));
  expect(set.stderr).toBe(imported.stderr);
});
