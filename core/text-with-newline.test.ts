import { describe, expect, it } from 'vitest';
import { rememberTextWithNewline, textWithNewline } from './text-with-newline.js';

describe('textWithNewline', () => {
  it('gives back the remembered string for its text, and a new one for any other', () => {
    const withNewline = `${'{\n  "a": "é"\n}'.repeat(3)}\n`;
    const text = rememberTextWithNewline(withNewline);
    expect(text).toBe(withNewline.slice(0, -1));
    expect(textWithNewline(text)).toBe(withNewline);
    expect(textWithNewline('{}')).toBe('{}\n');
    // An equal text made apart from the reader's gets the same characters.
    expect(textWithNewline(`${text.slice(0, 5)}${text.slice(5)}`)).toBe(withNewline);
  });
});
