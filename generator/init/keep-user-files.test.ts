import { describe, expect, it } from 'vitest';
import { keepUserFiles } from './keep-user-files.js';

describe('keepUserFiles', () => {
  it('keeps every existing file and names the generated paths it displaced', () => {
    const result = keepUserFiles(
      { 'config.yaml': 'a: 1\n', 'README.md': 'generated\n' },
      { 'README.md': 'mine\n', 'Docs/guide.md': '# Guide\n' },
    );
    expect(result.files).toEqual({
      'config.yaml': 'a: 1\n',
      'README.md': 'mine\n',
      'Docs/guide.md': '# Guide\n',
    });
    expect(result.kept).toEqual(['README.md']);
  });
  it('sees only own paths: a user file named like an Object.prototype key is not a collision', () => {
    const result = keepUserFiles({ 'config.yaml': 'x\n' }, { constructor: 'mine\n' });
    expect(result.kept).toEqual([]);
    expect(result.files['constructor']).toBe('mine\n');
  });
});
