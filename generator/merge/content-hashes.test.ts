import { describe, expect, it } from 'vitest';
import type { WidgetItem } from '../../folder/model.js';
import { itemContentHashes } from './content-hashes.js';

describe('itemContentHashes', () => {
  const skill = {
    name: 's',
    file: 'Skills/s.md',
    frontmatter: { description: 'd', enabled: false },
    body: 'b',
  };

  it('ignores enabled and sortOrder, sees everything else', () => {
    const base = itemContentHashes(skill);
    expect(
      itemContentHashes({ ...skill, frontmatter: { description: 'd', enabled: true, sortOrder: 3 } }),
    ).toEqual(base);
    expect(itemContentHashes({ ...skill, body: 'b2' })).not.toEqual(base);
    expect(itemContentHashes({ ...skill, frontmatter: { description: 'other' } })).not.toEqual(base);
  });

  it('hashes a widget page and its sidecar separately', () => {
    const w: WidgetItem = {
      name: 'w',
      file: 'Widgets/w.html',
      sidecarFile: 'Widgets/w.json',
      html: '<p>',
      sidecar: {},
    };
    const a = itemContentHashes(w);
    const b = itemContentHashes({ ...w, sidecar: { enabled: true }, html: '<p>' });
    expect(b).toEqual(a);
    expect(itemContentHashes({ ...w, html: '<b>' })['Widgets/w.html']).not.toBe(a['Widgets/w.html']);
  });
});
