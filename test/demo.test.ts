/**
 * `npm start` is the product on an embedded default: this runs the same command with
 * --self-check, which connects the MCP SDK client to the served demo and calls a tool.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { svc } from './helpers/run-cli.js';

const work = mkdtempSync(path.join(tmpdir(), 'svc-demo-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('svc demo (npm start)', () => {
  it('imports the demo, serves it and answers a tool call through the MCP client', async () => {
    const run = await svc(['demo', 'demo', '--port', '0', '--self-check'], { cwd: work });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/✓ Tools\s+4/);
    expect(run.stdout).toMatch(/✓ Documentation\s+\d+/);
    expect(run.stdout).toMatch(/self-check: 4 tools \(listBooks, addBook, getBook, deleteBook\)/);
    expect(run.stdout).toContain('Designing Data-Intensive Applications');
    const tool = YAML.parse(readFileSync(path.join(work, 'demo/Tools/listBooks.yaml'), 'utf8'));
    expect(tool.enabled).toBe(true);
  });

  it('runs again over its own earlier folder, but never over a folder it did not make', async () => {
    expect((await svc(['demo', 'demo', '--port', '0', '--self-check'], { cwd: work })).code).toBe(0);
    expect(
      (
        await svc(['init', 'other', '--name', 'Other', '--manual', '--base-url', 'https://a.test'], {
          cwd: work,
        })
      ).code,
    ).toBe(0);
    const refused = await svc(['demo', 'other', '--port', '0', '--self-check'], { cwd: work });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/not the demo/);
  });
});
