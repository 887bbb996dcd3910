import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { htmlToPlainText, loadHtmlToMarkdown, withTextFallback } from './html-to-markdown.js';

describe('HTML descriptions → Markdown', async () => {
  const convert = await loadHtmlToMarkdown((text, error) => {
    throw new Error(`fell back to text for ${text}: ${String(error)}`);
  });

  it('writes an HTML table as a GFM table', () => {
    const html =
      '<p>Rate limits:</p><table><thead><tr><th>Plan</th><th>Calls</th></tr></thead>' +
      '<tbody><tr><td>Free</td><td>100</td></tr><tr><td><code>pro</code></td><td>10&nbsp;000</td></tr></tbody></table>';
    const markdown = convert(html);
    expect(markdown).toContain('Rate limits:');
    expect(markdown).toMatch(/\| Plan +\| Calls +\|/);
    expect(markdown).toMatch(/\| -+ +\| -+ +\|/);
    expect(markdown).toMatch(/\| `pro` +\| 10\u00a0000 +\|/);
  });

  it('writes strikethrough and task lists, and keeps a table without a head', () => {
    expect(convert('<p><del>old</del> new</p>')).toBe('~~old~~ new');
    expect(convert('<ul><li><input type="checkbox" checked> done</li></ul>')).toMatch(/^- \[x\] done$/);
    expect(convert('<table><tr><td>a</td><td>b</td></tr></table>')).toMatch(/\| a \| b \|/);
  });
});

const TAGS = [
  'p',
  'div',
  'span',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'td',
  'th',
  'caption',
  'colgroup',
  'col',
  'ul',
  'ol',
  'li',
  'dl',
  'dt',
  'dd',
  'pre',
  'code',
  'blockquote',
  'h1',
  'h3',
  'a',
  'b',
  'strong',
  'em',
  'i',
  'del',
  's',
  'sup',
  'sub',
  'br',
  'hr',
  'img',
  'input',
  'details',
  'summary',
  'figure',
  'figcaption',
  'iframe',
  'video',
  'audio',
  'svg',
  'math',
  'script',
  'style',
  'template',
  'select',
  'option',
  'button',
  'form',
  'kbd',
  'abbr',
  'q',
  'mark',
  'ruby',
  'rt',
  'section',
  'nav',
  'x-custom',
];
const ATTRIBUTES = [
  '',
  ' href="https://x.test/?a=1&b=2"',
  ' src="a.png" alt="A"',
  ' type="checkbox" checked',
  ' colspan="2"',
  ' align="right"',
  ' class="c"',
];
const TEXTS = [
  'text',
  '|',
  '`tick`',
  '*star*',
  '[link]',
  '&amp;',
  '&#x1F600;',
  '&bogus;',
  '<',
  ' ',
  '\n',
  '## not a heading',
  '1. item',
  '\\',
];

const html: fc.Arbitrary<string> = fc.letrec<{ node: string; nodes: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...TEXTS),
    fc
      .tuple(fc.constantFrom(...TAGS), fc.constantFrom(...ATTRIBUTES), tie('nodes'), fc.boolean())
      .map(([tag, attrs, inner, closed]) => `<${tag}${attrs}>${inner}${closed ? `</${tag}>` : ''}`),
  ),
  nodes: fc.array(tie('node'), { maxLength: 4 }).map((parts) => parts.join('')),
})).node;

describe('a description conversion never throws', async () => {
  const fallbacks: string[] = [];
  const convert = await loadHtmlToMarkdown((text) => fallbacks.push(text));

  it('on generated HTML opening with a block element', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('p', 'div', 'table', 'ul', 'pre', 'blockquote', 'h2'),
        html,
        (tag, inner) => {
          const out = convert(`<${tag}>${inner}</${tag}>`);
          expect(typeof out).toBe('string');
          expect(fallbacks).toEqual([]);
        },
      ),
      { numRuns: 400, seed: 17 },
    );
  });

  it('falls back to plain text when the converter fails, and says so', () => {
    const told: string[] = [];
    const failing = withTextFallback(
      () => {
        throw new Error('Cannot handle unknown node `table`');
      },
      (text, error) => told.push(`${text} ${String(error)}`),
    );
    expect(failing('<p>Limits</p><table><tr><td>Free</td><td>100 &amp; more</td></tr></table>')).toBe(
      'Limits\nFree 100 & more',
    );
    expect(told).toEqual([
      '<p>Limits</p><table><tr><td>Free</td><td>100 &amp; more</td></tr></table> Error: Cannot handle unknown node `table`',
    ]);
  });

  it('the plain-text fallback itself never throws', () => {
    fc.assert(
      fc.property(fc.oneof(html, fc.string()), (text) => {
        expect(typeof htmlToPlainText(text)).toBe('string');
      }),
      { numRuns: 500, seed: 17 },
    );
  });
});
