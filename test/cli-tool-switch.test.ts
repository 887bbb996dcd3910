/**
 * `svc tool list --grep` and `svc tool enable/disable` on a folder made by `svc init` from a real
 * document, run in-process through the CLI's own entry: matching is plain text (a pattern with regex
 * metacharacters is taken literally and stays fast), and switching a tool changes its `enabled` line only,
 * so a comment and the layout a person gave the file survive.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/main.js';

const tmp = mkdtempSync(join(tmpdir(), 'svc-tool-switch-'));
const dir = join(tmp, 'pets');
const spec = new URL('../fixtures/specs/petstore-3.0.yaml', import.meta.url).pathname;

async function svc(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    cwd: tmp,
    env: {},
  });
  return { code, stdout, stderr };
}

const toolFiles = () => readdirSync(join(dir, 'Tools')).filter((f) => f.endsWith('.yaml'));

beforeAll(async () => {
  const init = await svc('init', dir, '--name', 'Pets', '--openapi', spec);
  expect(init.code, init.stderr).toBe(0);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('svc tool list / enable / disable', () => {
  it('lists and filters tools by plain text, linear even for a catastrophic regex', async () => {
    const all = await svc('tool', 'list', dir, '--json');
    expect(all.code, all.stderr).toBe(0);
    const tools = JSON.parse(all.stdout) as {
      key: string;
      name: string;
      endpoint: string;
      enabled: boolean;
    }[];
    expect(tools.length).toBe(toolFiles().length);
    expect(tools.every((t) => !t.enabled)).toBe(true);
    const byPath = await svc('tool', 'list', dir, '--grep', '/PETS/{', '--json');
    const matched = JSON.parse(byPath.stdout) as { endpoint: string }[];
    expect(matched.length).toBeGreaterThan(0);
    expect(matched.every((t) => t.endpoint.toLowerCase().includes('/pets/{'))).toBe(true);
    // Taken literally: matches nothing, and returns at once.
    const evil = await svc('tool', 'list', dir, '--grep', `(a+)+$${'a'.repeat(5000)}!`);
    expect(evil.code).toBe(0);
    expect(evil.stdout).toBe('');
    expect(evil.stderr).toContain(`0 of ${tools.length} tools`);
  });

  it('enables by --grep and disables by name, editing only the enabled line', async () => {
    const list = JSON.parse((await svc('tool', 'list', dir, '--json')).stdout) as {
      key: string;
      name: string;
      endpoint: string;
    }[];
    const target = list.find((t) => t.endpoint.startsWith('GET '))!;
    const file = join(dir, 'Tools', `${target.key}.yaml`);
    // A person's comment and a blank line in the file.
    const commented = readFileSync(file, 'utf8').replace(
      /^enabled:/m,
      '# reviewed by the API team\n\nenabled:',
    );
    writeFileSync(file, commented);

    const on = await svc('tool', 'enable', dir, '--grep', `${target.endpoint}|no-such-thing`);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toContain(`enabled ${target.name}`);
    expect(readFileSync(file, 'utf8')).toBe(commented.replace(/^enabled: false/m, 'enabled: true'));
    const enabled = JSON.parse((await svc('tool', 'list', dir, '--enabled', '--json')).stdout) as {
      key: string;
    }[];
    expect(enabled.map((t) => t.key)).toContain(target.key);

    const off = await svc('tool', 'disable', dir, target.name);
    expect(off.code, off.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(commented);
    expect(JSON.parse((await svc('tool', 'list', dir, '--enabled', '--json')).stdout)).toEqual([]);
  });

  it('refuses an unknown tool name with a suggestion, changing nothing', async () => {
    const list = JSON.parse((await svc('tool', 'list', dir, '--json')).stdout) as { name: string }[];
    const before = toolFiles().map((f) => readFileSync(join(dir, 'Tools', f), 'utf8'));
    const typo = `${list[0]!.name.slice(0, -1)}x`;
    const run = await svc('tool', 'enable', dir, typo);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`no tool named "${typo}"`);
    expect(run.stderr).toContain(`Did you mean \`${list[0]!.name}\``);
    expect(toolFiles().map((f) => readFileSync(join(dir, 'Tools', f), 'utf8'))).toEqual(before);
  });
});
