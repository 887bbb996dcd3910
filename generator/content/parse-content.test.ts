import { describe, expect, test } from 'vitest';
import type { RawFile } from '../sources/content-source.js';
import { canonicalContentPath, parseContent } from './parse-content.js';

function ok(files: RawFile[]) {
  const r = parseContent(files);
  if (!r.ok) throw new Error(r.errors.map((e) => e.describe()).join('\n'));
  return r.items;
}

function errors(files: RawFile[]) {
  const r = parseContent(files);
  if (r.ok) throw new Error('expected errors');
  return r.errors.map((e) => ({ code: e.code, message: e.message, ...e.place }));
}

describe('parseContent', () => {
  test('all five kinds, capitalized or lowercase directories, every item disabled', () => {
    const items = ok([
      { path: 'skills/s.md', text: '---\ndescription: A skill.\nenabled: true\n---\nBody\n' },
      { path: 'Prompts/p.md', text: '---\narguments:\n  - name: x\n    required: true\n---\nSay {{x}}\n' },
      { path: 'resources/r.md', text: '---\nuriTemplate: res://{id}\nuriVariables:\n  id: The id.\n---\n{}' },
      { path: 'Docs/guides/webhooks.md', text: '# Webhooks\n' },
      { path: 'docs/intro.mdx', text: '---\ndescription: d\n---\nNo heading' },
      { path: 'WIDGETS/ignored.html', text: 'not a content directory name' },
      { path: 'Widgets/w.html', text: '<p>w</p>\n' },
      { path: 'widgets/w.json', text: '{"csp":{"connectDomains":["https://x.test"]}}' },
      { path: 'Widgets/bare.html', text: '<p>bare</p>' },
      { path: 'README.md', text: 'not content' },
    ]);
    expect(items.skills).toEqual([
      {
        name: 's',
        file: 'Skills/s.md',
        frontmatter: { description: 'A skill.', enabled: false },
        body: 'Body\n',
      },
    ]);
    expect(items.prompts[0]?.frontmatter).toEqual({
      arguments: [{ name: 'x', required: true }],
      enabled: false,
    });
    expect(items.resources[0]).toMatchObject({ name: 'r', file: 'Resources/r.md', body: '{}' });
    expect(items.docs.map((d) => [d.name, d.file, d.title])).toEqual([
      ['guides/webhooks', 'Docs/guides/webhooks.md', 'Webhooks'],
      ['intro', 'Docs/intro.mdx', 'intro'],
    ]);
    expect(items.widgets).toEqual([
      {
        name: 'bare',
        file: 'Widgets/bare.html',
        sidecarFile: 'Widgets/bare.json',
        html: '<p>bare</p>',
        sidecar: { enabled: false },
      },
      {
        name: 'w',
        file: 'Widgets/w.html',
        sidecarFile: 'Widgets/w.json',
        html: '<p>w</p>\n',
        sidecar: { csp: { connectDomains: ['https://x.test'] }, enabled: false },
      },
    ]);
  });

  test('doc title: frontmatter, else first heading (markdown stripped), else the slug', () => {
    const items = ok([
      { path: 'Docs/a.md', text: '---\ntitle: From frontmatter\n---\n# Heading\n' },
      { path: 'Docs/b.md', text: 'Intro text.\n\n## The **bold** `code` heading\n' },
      { path: 'Docs/c/d.md', text: 'No heading at all.\n' },
      { path: 'Docs/e.md', text: 'Setext heading\n==============\n' },
    ]);
    expect(items.docs.map((d) => d.title)).toEqual([
      'From frontmatter',
      'The bold code heading',
      'c/d',
      'Setext heading',
    ]);
  });

  test('sortOrder is kept; order is (sortOrder ?? +inf, name)', () => {
    const items = ok([
      { path: 'Skills/z.md', text: '---\ndescription: z\nsortOrder: 0\n---\n' },
      { path: 'Skills/b.md', text: '---\ndescription: b\n---\n' },
      { path: 'Skills/a.md', text: '---\ndescription: a\n---\n' },
      { path: 'Skills/m.md', text: '---\ndescription: m\nsortOrder: 5\n---\n' },
    ]);
    expect(items.skills.map((s) => [s.name, s.frontmatter.sortOrder])).toEqual([
      ['z', 0],
      ['m', 5],
      ['a', undefined],
      ['b', undefined],
    ]);
  });

  test('every problem in every file, each naming file and line', () => {
    const all = errors([
      { path: 'Skills/broken.md', text: '---\ndescription: ok\nreferences: [a, b\nsortOrder: 1\n---\n' },
      { path: 'prompts/extra.md', text: '---\ntitle: T\ndescription: D\nauthor: me\n---\nBody' },
      { path: 'Skills/nodesc.md', text: '---\nsortOrder: 1\n---\n' },
      { path: 'Resources/r.md', text: '---\nuriTemplate: not a uri\nmimeType: 3\n---\n' },
    ]);
    // The unclosed flow sequence opens on line 3; yaml notices it on line 4.
    const broken = all.find((e) => e.file === 'Skills/broken.md');
    expect(broken).toMatchObject({ code: 'CONTENT_INVALID', line: 4 });
    expect(broken?.message).toMatch(/^frontmatter: Flow sequence/);
    expect(all.find((e) => e.file === 'prompts/extra.md')).toMatchObject({
      code: 'CONTENT_INVALID',
      field: '/author',
      line: 4,
      message: 'frontmatter /author has unknown key "author"',
    });
    expect(all.find((e) => e.file === 'Skills/nodesc.md')?.message).toMatch(
      /required property 'description'/,
    );
    expect(all.filter((e) => e.file === 'Resources/r.md').map((e) => [e.field, e.line])).toEqual([
      ['/uriTemplate', 2],
      ['/mimeType', 3],
    ]);
  });

  test('unsafe paths and names are CONTENT_PATH_UNSAFE', () => {
    const all = errors([
      { path: 'Docs/../../etc/passwd.md', text: 'x' },
      { path: '/abs/Docs/x.md', text: 'x' },
      { path: 'Docs\\win.md', text: 'x' },
      { path: 'Skills/-dash.md', text: '---\ndescription: d\n---\n' },
      { path: 'Docs/sp ace/x.md', text: 'x' },
    ]);
    expect(all.map((e) => [e.code, e.file])).toEqual([
      ['CONTENT_PATH_UNSAFE', 'Docs/../../etc/passwd.md'],
      ['CONTENT_PATH_UNSAFE', '/abs/Docs/x.md'],
      ['CONTENT_PATH_UNSAFE', 'Docs\\win.md'],
      ['CONTENT_PATH_UNSAFE', 'Docs/sp ace/x.md'],
      ['CONTENT_PATH_UNSAFE', 'Skills/-dash.md'],
    ]);
  });

  test('widget sidecar without its page, broken sidecar JSON, unknown sidecar key', () => {
    const all = errors([
      { path: 'Widgets/lonely.json', text: '{}' },
      { path: 'Widgets/a.html', text: '<p/>' },
      { path: 'Widgets/a.json', text: '{\n  "description": "x"\n  "csp": {}\n}' },
      { path: 'Widgets/b.html', text: '<p/>' },
      { path: 'Widgets/b.json', text: '{"color": "red"}' },
    ]);
    expect(all).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          file: 'Widgets/lonely.json',
          message: expect.stringMatching(/lonely.html is missing/),
        }),
        expect.objectContaining({ file: 'Widgets/a.json', line: 3 }),
        expect.objectContaining({ file: 'Widgets/b.json', field: '/color', line: 1 }),
      ]),
    );
  });

  test('the same item twice (docs/ and Docs/, or .md and .mdx) is an error', () => {
    expect(
      errors([
        { path: 'docs/x.md', text: 'a' },
        { path: 'Docs/x.md', text: 'b' },
      ])[0]?.message,
    ).toMatch(/same item/);
    expect(
      errors([
        { path: 'Docs/x.md', text: 'a' },
        { path: 'Docs/x.mdx', text: 'b' },
      ])[0]?.message,
    ).toMatch(/same item/);
  });

  test('docs deeper than three directories are refused by name', () => {
    expect(ok([{ path: 'Docs/a/b/c/page.md', text: '# P' }]).docs[0]?.name).toBe('a/b/c/page');
    expect(errors([{ path: 'Docs/a/b/c/d/page.md', text: '# P' }])).toEqual([
      expect.objectContaining({ code: 'CONTENT_PATH_UNSAFE', file: 'Docs/a/b/c/d/page.md' }),
    ]);
  });

  test('errors name the file as the repository spells it', () => {
    expect(errors([{ path: 'skills/x.md', text: '---\nfoo: 1\n---\n' }])[0]?.file).toBe('skills/x.md');
  });
});

test('canonicalContentPath', () => {
  expect(canonicalContentPath('docs/a/b.md')).toBe('Docs/a/b.md');
  expect(canonicalContentPath('Widgets/w.html')).toBe('Widgets/w.html');
  expect(canonicalContentPath('DOCS/a.md')).toBeUndefined();
  expect(canonicalContentPath('other/a.md')).toBeUndefined();
});
