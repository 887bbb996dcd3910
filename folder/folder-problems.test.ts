import { describe, expect, it } from 'vitest';
import { SvcError } from '../core/svc-error.js';
import { folderInvalid } from './folder-problems.js';
import { loadFolder } from './load-folder.js';

describe('folderInvalid', () => {
  it('names the first problem and its place; the others become details', () => {
    const problems = [
      new SvcError('FOLDER_INVALID', 'enabled must be boolean', {
        place: { file: 'Tools/a.yaml', field: '/enabled' },
      }),
      new SvcError('FOLDER_INVALID', 'name is required', { place: { file: 'Tools/b.yaml' } }),
    ];
    const error = folderInvalid(problems, 'the server folder');
    expect(error.code).toBe('FOLDER_INVALID');
    expect(error.message).toBe('the server folder is not valid: enabled must be boolean');
    expect(error.place).toEqual({ file: 'Tools/a.yaml', field: '/enabled' });
    expect(error.details).toEqual([problems[1]!.describe()]);
  });

  it('words what loadFolder finds in a folder without config.yaml', () => {
    const loaded = loadFolder({ 'README.md': 'x' });
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(folderInvalid(loaded.errors).message).toMatch(/^the folder is not valid: /);
  });
});
