/**
 * Folder content never reaches the terminal as control sequences (issue 16, low): a path, name
 * or summary in a folder file may hold ESC/BEL/C1 bytes or bidirectional overrides; `svc`
 * prints them as visible escapes. In-process through runCli, as `svc` runs each command.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/main.js';
import { terminalSafe } from '../cli/terminal-text.js';
import { copyFixtureFolder, type TempFolder } from '../runtime/testing/index.js';

const folders: TempFolder[] = [];
afterAll(async () => {
  for (const f of folders) await f.remove();
});

const CONTROL = /[\0-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    cwd: process.cwd(),
    env: {},
  });
  return { code, stdout, stderr };
}

describe('terminal escapes from folder files', () => {
  it('svc validate prints a hostile tool path with visible escapes, not raw', async () => {
    const folder = await copyFixtureFolder('fixtures/runtime/basic', 'https://api.example.test');
    folders.push(folder);
    const file = join(folder.dir, 'Tools/hidden.yaml');
    const yaml = (await readFile(file, 'utf8'))
      .replace('  path: /echo/everything', '  path: "/echo/\\e]0;pwned\\a\\e[2J\\u009b31m\\u202eevil"')
      .replace('enabled: false', 'enabled: false\nstale: true');
    await writeFile(file, yaml);
    const { stdout, stderr } = await run(['validate', folder.dir]);
    const printed = stdout + stderr;
    expect(printed).toContain('is stale');
    expect(printed).not.toMatch(CONTROL);
    expect(printed).toContain('/echo/\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202eevil');
  });

  it('keeps tabs, line feeds and CRLF; escapes a lone CR', () => {
    expect(terminalSafe('a\tb\nc\r\nd')).toBe('a\tb\nc\r\nd');
    expect(terminalSafe('ok\rforged')).toBe('ok\\x0dforged');
    expect(terminalSafe('\u2066x\u2069 é 日本')).toBe('\\u2066x\\u2069 é 日本');
  });
});
