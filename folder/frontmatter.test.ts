import { describe, expect, test } from 'vitest';
import { firstHeading } from './doc-title.js';
import { splitFrontmatter } from './frontmatter.js';

describe('splitFrontmatter', () => {
  test('splits YAML and body, body exactly after the closing fence', () => {
    const r = splitFrontmatter('---\ntitle: T\nsortOrder: 2\n---\n# Head\n\nText\n');
    expect(r).toMatchObject({ ok: true, data: { title: 'T', sortOrder: 2 }, body: '# Head\n\nText\n' });
  });

  test('a file without frontmatter is all body', () => {
    expect(splitFrontmatter('# Only body\n')).toMatchObject({ ok: true, data: {}, body: '# Only body\n' });
  });

  test('empty frontmatter gives no data', () => {
    expect(splitFrontmatter('---\n---\nbody')).toMatchObject({ ok: true, data: {}, body: 'body' });
  });

  test('CRLF files are read as LF', () => {
    expect(splitFrontmatter('---\r\ntitle: T\r\n---\r\nline\r\n')).toMatchObject({
      ok: true,
      data: { title: 'T' },
      body: 'line\n',
    });
  });

  test('a YAML error names the line in the file', () => {
    const r = splitFrontmatter('---\ntitle: ok\nlist: [a, b\nnext: 1\n---\nbody');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems[0]?.line).toBeGreaterThanOrEqual(3);
  });

  test('a never-closed fence is an error, not a file of frontmatter', () => {
    const r = splitFrontmatter('---\ntitle: T\n# Heading\n');
    expect(r).toMatchObject({ ok: false, problems: [{ line: 1 }] });
    if (!r.ok) expect(r.problems[0]?.message).toMatch(/never closed/);
  });

  test('a language tag after the fence is refused before any engine runs', () => {
    const r = splitFrontmatter("---js\n{ title: require('fs') }\n---\nbody");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems[0]?.message).toMatch(/language tag/);
  });

  test('a byte-order mark before the fence is ignored', () => {
    expect(splitFrontmatter('\uFEFF---\ntitle: T\n---\nbody')).toMatchObject({
      ok: true,
      data: { title: 'T' },
      body: 'body',
    });
  });

  test('a line starting with --- inside the frontmatter is refused with its line', () => {
    expect(splitFrontmatter('---\ntitle: T\n---x\nmore: 1\n---\nbody')).toMatchObject({
      ok: false,
      problems: [{ line: 3 }],
    });
  });

  test('the closing fence is exactly ---', () => {
    expect(splitFrontmatter('---\ntitle: T\n---  \nbody\n---\n')).toMatchObject({
      ok: false,
      problems: [{ line: 3 }],
    });
  });

  test('frontmatter that is not a mapping is refused', () => {
    expect(splitFrontmatter('---\n- a\n- b\n---\nbody').ok).toBe(false);
  });

  test('an alias bomb in frontmatter is refused', () => {
    const fm = [
      'a: &a [x,x,x,x,x,x,x,x,x]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
    ];
    const r = splitFrontmatter(`---\n${fm.join('\n')}\n---\nbody`);
    expect(r.ok).toBe(false);
  });
});

describe('firstHeading', () => {
  test('ATX, setext, inline markup, code fences and no heading', () => {
    expect(firstHeading('# Title *with* `code`\n\ntext')).toBe('Title with code');
    expect(firstHeading('Intro\n\nSetext\n======\n')).toBe('Setext');
    expect(firstHeading('```\n# not a heading\n```\n\n## Real\n')).toBe('Real');
    expect(firstHeading('just text\n- a list\n')).toBeUndefined();
    expect(firstHeading('a\n\n---\n\nno heading after a rule')).toBeUndefined();
    expect(firstHeading(`${'para\n\n'.repeat(1000)}### Deep down`)).toBe('Deep down');
  });
});
