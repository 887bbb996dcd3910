import { describe, expect, it } from 'vitest';
import { renderRulesDoc } from './rules-doc.js';
import { RULES } from './rules.js';

describe('docs/diff-rules.md', () => {
  it('lists every rule with its level (regenerate with -u)', async () => {
    const doc = renderRulesDoc();
    for (const id of Object.keys(RULES).filter((i) => !/-(tightened|loosened)$/.test(i)))
      expect(doc).toContain(`| \`${id}\` | ${RULES[id as keyof typeof RULES].level} |`);
    await expect(doc).toMatchFileSnapshot('../../docs/diff-rules.md');
  });
});
