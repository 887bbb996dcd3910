import { describe, expect, it } from 'vitest';
import {
  COMPACT_TEXT,
  capText,
  FULL_TEXT,
  firstSentence,
  propertyDescription,
  toolDescription,
} from './describe.js';
import { loadHtmlToMarkdown, looksLikeHtml, mayContainHtml } from './html-to-markdown.js';

describe('descriptions', () => {
  it('combines summary and description, and falls back to method and path', () => {
    const base = { deprecated: false, method: 'GET', path: '/x' };
    expect(toolDescription({ ...base, summary: 'Get x', description: 'Returns x.' })).toBe(
      'Get x\n\nReturns x.',
    );
    expect(toolDescription({ ...base, summary: 'Get x', description: 'Get x and more.' })).toBe(
      'Get x and more.',
    );
    expect(toolDescription(base)).toBe('GET /x');
    expect(toolDescription({ ...base, deprecated: true, summary: 'Old' })).toBe('(deprecated) Old');
  });

  it('cuts at a sentence end, else a word, and marks a word cut', () => {
    expect(capText('One sentence here. Another one that is long enough to cut.', 30)).toBe(
      'One sentence here.',
    );
    expect(capText('word '.repeat(20).trim(), 23)).toBe('word word word word…');
    expect(capText('short', 40)).toBe('short');
  });

  it("keeps a property's first sentence within the cap", () => {
    expect(firstSentence('Limit the page size. Defaults to 30.', 90)).toBe('Limit the page size.');
    expect(firstSentence('e.g. short. The rest.', 90)).toBe('e.g. short. The rest.');
    expect(firstSentence(`${'long '.repeat(40)}end.`, 90).length).toBeLessThanOrEqual(90);
  });

  it('keeps a long description whole unless compact', () => {
    const base = { deprecated: false, method: 'GET', path: '/x' };
    const long = 'This endpoint lists pull requests. '.repeat(40).trim();
    expect(toolDescription({ ...base, description: long })).toBe(long);
    expect(toolDescription({ ...base, description: long }, COMPACT_TEXT).length).toBeLessThanOrEqual(600);
    expect(propertyDescription('First sentence here. Second one.', FULL_TEXT, 90)).toBe(
      'First sentence here. Second one.',
    );
    expect(propertyDescription('First sentence here. Second one.', COMPACT_TEXT, 90)).toBe(
      'First sentence here.',
    );
  });
});

describe('HTML to Markdown', async () => {
  const htmlToMarkdown = await loadHtmlToMarkdown();

  it('converts a description that is HTML as a whole', () => {
    expect(htmlToMarkdown('<p>Create a <code>Charge</code>.</p><ul><li>one</li><li>two</li></ul>')).toBe(
      'Create a `Charge`.\n\n- one\n- two',
    );
    expect(looksLikeHtml('  <p>x</p>')).toBe(true);
  });

  it('leaves Markdown and plain text alone, inline HTML included', () => {
    for (const text of ['Use `a < b` and **bold**.', 'Line one<br>line two', 'A list:\n- x\n- y']) {
      expect(looksLikeHtml(text)).toBe(false);
      expect(htmlToMarkdown(text)).toBe(text);
    }
  });

  it('tells which raw documents may hold HTML, also when JSON escapes the bracket', () => {
    expect(mayContainHtml('{"description": "<p>Hi</p>"}')).toBe(true);
    expect(mayContainHtml('{"description": "\\u003cp>Hi\\u003c/p>"}')).toBe(true);
    expect(mayContainHtml('description: Plain text, a < b.')).toBe(false);
  });
});
