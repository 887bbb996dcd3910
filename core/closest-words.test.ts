import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from './closest-words.js';

describe('did you mean', () => {
  it('measures edits', () => {
    expect(editDistance('init', 'init')).toBe(0);
    expect(editDistance('int', 'init')).toBe(1);
    expect(editDistance('--nmae', '--name')).toBe(2);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests the closest known word, or nothing when none is close', () => {
    expect(closest('serv', ['serve', 'import', 'init'])).toEqual(['serve']);
    expect(didYouMean('--nmae', ['--name', '--json', '--manual'])).toBe(' Did you mean `--name`?');
    expect(didYouMean('vaildate', ['validate', 'diff'], (c) => `svc ${c}`)).toBe(
      ' Did you mean `svc validate`?',
    );
    expect(didYouMean('frobnicate', ['init', 'import', 'serve'])).toBe('');
  });
});
