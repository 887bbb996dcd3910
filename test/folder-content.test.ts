/**
 * The content fixture (all five kinds) through the real reader, parser and renderer, against
 * the expected folder files in fixtures/content/_expected/ (`npx vitest run -u` rewrites them
 * after an intended change), and every broken case refused with the file and line named.
 */
import { describe, expect, test } from 'vitest';
import { parseContent } from '../generator/content/index.js';
import { renderContent } from '../generator/render/index.js';
import { readContentDir } from '../generator/sources/content-source.js';

describe('fixtures/content', () => {
  test('renders to the expected folder files', async () => {
    const parsed = parseContent(await readContentDir('fixtures/content'));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const files = renderContent(parsed.items);
    expect(Object.keys(files)).toEqual([
      'Skills/search-orders.md',
      'Skills/refund-policy.md',
      'Prompts/summarize-order.md',
      'Prompts/triage.md',
      'Resources/order-by-id.md',
      'Resources/order-schema.md',
      'Docs/guides/webhooks.md',
      'Docs/api/v1/reference/errors.md',
      'Docs/changelog.md',
      'Docs/intro.mdx',
      'Widgets/order-card.html',
      'Widgets/order-card.json',
      'Widgets/status-badge.html',
      'Widgets/status-badge.json',
    ]);
    for (const [path, text] of Object.entries(files)) {
      await expect(text).toMatchFileSnapshot(`../fixtures/content/_expected/${path}`);
    }
    // Imported items arrive disabled even when the repository says otherwise.
    expect(files['Skills/search-orders.md']).toMatch(/\nenabled: false\n/);
    expect(parsed.items.docs.map((d) => [d.name, d.title])).toEqual([
      ['guides/webhooks', 'Webhooks'],
      ['api/v1/reference/errors', 'Error codes'],
      ['changelog', 'changelog'],
      ['intro', 'Introduction to the Orders API'],
    ]);
  });
});

describe('fixtures/content-broken', () => {
  async function problems(dir: string) {
    const parsed = parseContent(await readContentDir(`fixtures/content-broken/${dir}`));
    if (parsed.ok) throw new Error(`${dir} was accepted`);
    return parsed.errors.map((e) => ({
      code: e.code,
      file: e.place.file,
      line: e.place.line,
      message: e.message,
    }));
  }

  test('bad-frontmatter: every broken file reported, with lines', async () => {
    const all = await problems('bad-frontmatter');
    expect(all.map((p) => [p.code, p.file, p.line])).toEqual([
      ['CONTENT_INVALID', 'Docs/evil.md', 1],
      ['CONTENT_INVALID', 'Docs/unclosed.md', 1],
      ['CONTENT_INVALID', 'Skills/broken.md', 4],
      ['CONTENT_INVALID', 'Skills/no-description.md', 2],
      ['CONTENT_INVALID', 'Widgets/orphan.json', undefined],
      ['CONTENT_INVALID', 'Widgets/card.json', 3],
    ]);
  });

  test('unknown-key: names the file, the key and its line', async () => {
    expect(await problems('unknown-key')).toEqual([
      {
        code: 'CONTENT_INVALID',
        file: 'Prompts/extra.md',
        line: 4,
        message: 'frontmatter /author has unknown key "author"',
      },
    ]);
  });

  test('alias-bomb: refused', async () => {
    const [p] = await problems('alias-bomb');
    expect(p).toMatchObject({ file: 'Resources/bomb.md' });
    expect(p?.message).toMatch(/alias bomb/);
  });

  test('path-escape: refused before anything is parsed', async () => {
    await expect(readContentDir('fixtures/content-broken/path-escape')).rejects.toMatchObject({
      code: 'CONTENT_PATH_UNSAFE',
    });
  });
});
