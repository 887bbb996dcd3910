import { describe, expect, test } from 'vitest';
import { renderFolder } from '../generator/render/index.js';
import { loadFolder, loadsPath } from './load-folder.js';
import type { FolderFiles } from './model.js';
import { sampleFolderModel } from './testing/sample-folder.js';

function sampleFiles(): FolderFiles {
  return renderFolder(sampleFolderModel());
}

function errorsOf(files: FolderFiles) {
  const r = loadFolder(files);
  if (r.ok) throw new Error('expected the folder to be refused');
  return r.errors.map((e) => ({ code: e.code, message: e.message, ...e.place }));
}

describe('loadFolder', () => {
  test('loads a rendered folder: tools sorted by (sortOrder, key), content sorted by (sortOrder, name)', () => {
    const r = loadFolder(sampleFiles());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.folder.tools.map((t) => t.key)).toEqual(['getOrder', 'createOrder']);
    expect(r.folder.config.server.id).toBe('orders');
    expect(r.folder.docs.map((d) => [d.name, d.title])).toEqual([
      ['guides/webhooks', 'Webhooks'],
      ['intro', 'Intro'],
    ]);
    expect(r.folder.widgets[0]?.sidecar.csp?.connectDomains).toEqual(['https://api.example.test']);
  });

  test('rateLimits: n/s|m|h only, and every perTool name a tool of the folder (svc validate)', () => {
    const ok = sampleFiles();
    ok['config.yaml'] = `${ok['config.yaml']}rateLimits:\n  perCaller: 60/m\n  perTool:\n    getOrder: 5/s\n`;
    const loaded = loadFolder(ok);
    expect(loaded.ok && loaded.folder.config.rateLimits).toEqual({
      perCaller: '60/m',
      perTool: { getOrder: '5/s' },
    });

    const unknown = sampleFiles();
    unknown['config.yaml'] = `${unknown['config.yaml']}rateLimits:\n  perTool:\n    getOrdr: 5/s\n`;
    expect(errorsOf(unknown)).toEqual([
      expect.objectContaining({
        file: 'config.yaml',
        field: '/rateLimits/perTool/getOrdr',
        line: (unknown['config.yaml'] ?? '').split('\n').indexOf('    getOrdr: 5/s') + 1,
        message: expect.stringContaining('"getOrdr", which is no tool of this folder'),
      }),
    ]);

    for (const bad of ['60/min', '0/s', '60', 'ten/m']) {
      const files = sampleFiles();
      files['config.yaml'] = `${files['config.yaml']}rateLimits:\n  perCaller: ${bad}\n`;
      expect(errorsOf(files)).toEqual([
        expect.objectContaining({ file: 'config.yaml', field: '/rateLimits/perCaller' }),
      ]);
    }
  });

  test('a missing config.yaml is named', () => {
    const files = sampleFiles();
    delete files['config.yaml'];
    expect(errorsOf(files)).toEqual([
      expect.objectContaining({ code: 'FOLDER_INVALID', file: 'config.yaml' }),
    ]);
  });

  test('a schema violation names file, field (JSON pointer) and line', () => {
    const files = sampleFiles();
    files['Tools/getOrder.yaml'] = (files['Tools/getOrder.yaml'] ?? '').replace(
      '  method: GET',
      '  method: FETCH',
    );
    const [e] = errorsOf(files);
    expect(e).toMatchObject({
      code: 'FOLDER_INVALID',
      file: 'Tools/getOrder.yaml',
      field: '/endpoint/method',
    });
    const lines = (files['Tools/getOrder.yaml'] ?? '').split('\n');
    expect(lines[(e?.line ?? 0) - 1]).toBe('  method: FETCH');
  });

  test('an unknown key is named with its own line', () => {
    const files = sampleFiles();
    files['config.yaml'] = `${files['config.yaml']}secretValue: nope\n`;
    const [e] = errorsOf(files);
    expect(e).toMatchObject({
      file: 'config.yaml',
      field: '/secretValue',
      message: '/secretValue has unknown key "secretValue"',
    });
    expect((files['config.yaml'] ?? '').split('\n')[(e?.line ?? 0) - 1]).toBe('secretValue: nope');
  });

  test('every problem in every file is reported', () => {
    const files = sampleFiles();
    files['Tools/getOrder.yaml'] = (files['Tools/getOrder.yaml'] ?? '').replace(
      'enabled: false',
      'enabled: maybe',
    );
    files['Tools/createOrder.yaml'] = (files['Tools/createOrder.yaml'] ?? '').replace(
      'sortOrder: 1',
      'sortOrder: -1',
    );
    files['Skills/search-orders.md'] = (files['Skills/search-orders.md'] ?? '').replace(
      'description:',
      'desc:',
    );
    const errors = errorsOf(files);
    expect(errors.map((e) => e.file).sort()).toEqual(
      expect.arrayContaining(['Skills/search-orders.md', 'Tools/createOrder.yaml', 'Tools/getOrder.yaml']),
    );
    const skill = errors.filter((e) => e.file === 'Skills/search-orders.md');
    expect(skill.map((e) => e.field).sort()).toEqual(['', '/desc']);
    expect(skill.find((e) => e.field === '/desc')?.line).toBe(2);
  });

  test('a tool file with `__proto__: {enabled: true}` and no `enabled:` is refused, never enabled', () => {
    const files = sampleFiles();
    const original = files['Tools/getOrder.yaml'] ?? '';
    expect(original).toContain('enabled: false\n');
    files['Tools/getOrder.yaml'] = original.replace('enabled: false\n', '__proto__:\n  enabled: true\n');
    const r = loadFolder(files);
    if (r.ok) {
      // Never reached today; if a loader ever took the file, the tool still must not be enabled.
      expect(r.folder.tools.find((t) => t.file === 'Tools/getOrder.yaml')?.tool.enabled).not.toBe(true);
    }
    expect(r.ok).toBe(false);
    expect(errorsOf(files)).toContainEqual(
      expect.objectContaining({ file: 'Tools/getOrder.yaml', field: '/__proto__' }),
    );
  });

  test('tool names must be unique across files', () => {
    const files = sampleFiles();
    files['Tools/createOrder.yaml'] = (files['Tools/createOrder.yaml'] ?? '').replace(
      'name: createOrder\n',
      'name: getOrder\n',
    );
    expect(errorsOf(files)).toEqual([
      expect.objectContaining({ file: 'Tools/getOrder.yaml', field: '/name', line: 2 }),
    ]);
  });

  test("a tool's widget must exist", () => {
    const files = sampleFiles();
    delete files['Widgets/order-card.html'];
    delete files['Widgets/order-card.json'];
    const errors = errorsOf(files);
    expect(errors).toEqual([expect.objectContaining({ file: 'Tools/getOrder.yaml', field: '/widget' })]);
    expect(errors[0]?.message).toMatch(/order-card/);
  });

  test('tool file names must be safe keys', () => {
    const files = sampleFiles();
    files['Tools/bad key.yaml'] = files['Tools/getOrder.yaml'] ?? '';
    expect(errorsOf(files)).toEqual([expect.objectContaining({ file: 'Tools/bad key.yaml' })]);
  });

  test('a YAML alias bomb and an oversized file are refused', () => {
    const files = sampleFiles();
    files['Tools/bomb.yaml'] = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ].join('\n');
    files['Docs/huge.md'] = 'x'.repeat(9 * 1024 * 1024);
    const errors = errorsOf(files);
    expect(errors.find((e) => e.file === 'Tools/bomb.yaml')?.message).toMatch(/alias bomb/);
    expect(errors.find((e) => e.file === 'Docs/huge.md')?.message).toMatch(/larger than/);
  });

  test('ignores .svc/, Tools/openapi.json and unknown files', () => {
    const files = sampleFiles();
    files['.svc/history/1.json'] = 'not yaml: [';
    files['Tools/openapi.json'] = '{ broken';
    files['notes.txt'] = 'mine';
    files['Docs/img/logo.svg'] = '<svg/>';
    expect(loadFolder(files).ok).toBe(true);
  });

  test('content in the folder keeps its enabled flag; absent means disabled', () => {
    const files = sampleFiles();
    files['Docs/extra.md'] = '# Extra\n';
    const r = loadFolder(files);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.folder.prompts[0]?.frontmatter.enabled).toBe(true);
    expect(r.folder.docs.find((d) => d.name === 'extra')).toMatchObject({
      title: 'Extra',
      frontmatter: { enabled: false },
    });
  });

  test('docs deeper than three directories are refused', () => {
    const files = sampleFiles();
    files['Docs/a/b/c/ok.md'] = '# Ok\n';
    expect(loadFolder(files).ok).toBe(true);
    files['Docs/a/b/c/d/deep.md'] = '# Deep\n';
    expect(errorsOf(files)).toEqual([expect.objectContaining({ file: 'Docs/a/b/c/d/deep.md' })]);
  });

  test('loadsPath: a read that skips what it refuses loads the same folder, problems included', () => {
    const files = sampleFiles();
    Object.assign(files, {
      '.svc/generated.json': '{}',
      '.svc/history/000001.json': '{}',
      'Tools/openapi.json': '{"openapi":"3.1.0"}',
      'Tools/bad name.yaml': 'name: x\n',
      'Tools/sub/nested.yaml': 'name: y\n',
      'Docs/a/b/c/d/deep.md': '# Deep\n',
      'Widgets/sub/w.html': '<p>',
      'README.md': '# r\n',
      'scripts/x.yaml': 'a: 1\n',
    });
    // readFolder's walk: a file is read when no directory above it is skipped and it is not.
    const dirsOf = (path: string) =>
      path
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join('/'));
    const kept = Object.fromEntries(
      Object.entries(files).filter(
        ([p]) => dirsOf(p).every((d) => loadsPath(d, true)) && loadsPath(p, false),
      ),
    );
    expect(Object.keys(kept)).not.toContain('Tools/openapi.json');
    expect(Object.keys(kept).some((p) => p.startsWith('.svc/'))).toBe(false);
    const describe = (r: ReturnType<typeof loadFolder>) =>
      r.ok ? r : { ...r, errors: r.errors.map((e) => e.describe()) };
    const full = describe(loadFolder(files));
    expect(full.ok).toBe(false);
    expect(describe(loadFolder(kept))).toEqual(full);
  });
});
