import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../core/svc-error.js';
import { resolveMode } from './context.js';
import { readInputs, splitPatterns } from './inputs.js';

describe('readInputs', () => {
  it('reads INPUT_* the way the runner sets them, hyphens kept', () => {
    const inputs = readInputs({
      INPUT_FOLDERS: 'mcp/*\n./servers/*/, apis/**',
      INPUT_MODE: 'merge',
      'INPUT_FAIL-ON': 'warning',
      'INPUT_COMMIT-MESSAGE': 'chore: sync',
      'INPUT_GITHUB-TOKEN': 'tok',
      'INPUT_SOURCE-TOKEN': 'src',
      'INPUT_SOURCE-USERNAME': 'oauth2',
    });
    expect(inputs).toEqual({
      folders: ['mcp/*', 'servers/*', 'apis/**'],
      mode: 'merge',
      failOn: 'warning',
      commitMessage: 'chore: sync',
      token: 'tok',
      sourceToken: 'src',
      sourceUsername: 'oauth2',
    });
  });
  it('applies action.yml defaults', () => {
    const inputs = readInputs({});
    expect(inputs.folders).toEqual(['mcp/*']);
    expect(inputs.mode).toBe('auto');
    expect(inputs.failOn).toBe('breaking');
  });
  it('refuses unknown modes and folders outside the repository', () => {
    for (const env of [{ INPUT_MODE: 'deploy' }, { 'INPUT_FAIL-ON': 'ERR' }, { INPUT_FOLDERS: '../x/*' }]) {
      let error: unknown;
      try {
        readInputs(env);
      } catch (e) {
        error = e;
      }
      expect(isSvcError(error) && error.code).toBe('USAGE');
    }
  });
  it('splits on commas and newlines', () => {
    expect(splitPatterns(' a ,\n\n b/ ')).toEqual(['a', 'b']);
  });
});

describe('resolveMode', () => {
  it('follows the event in auto mode', () => {
    expect(resolveMode('auto', { eventName: 'pull_request', ref: 'refs/pull/1/merge' })).toBe('pull_request');
    expect(resolveMode('auto', { eventName: 'push', ref: 'refs/heads/main' })).toBe('merge');
    expect(resolveMode('auto', { eventName: 'push', ref: 'refs/tags/v1' })).toBe('check');
    expect(resolveMode('auto', { eventName: 'schedule', ref: 'refs/heads/main' })).toBe('check');
    expect(resolveMode('check', { eventName: 'push', ref: 'refs/heads/main' })).toBe('check');
  });
});
