import { describe, expect, it } from 'vitest';
import { parseAllowPrivate, parseHostList } from './control-env.js';

describe('SVC_GIT_TOKEN_HOSTS', () => {
  it('is a comma-separated list of host names, empty when unset', () => {
    expect(parseHostList(undefined)).toEqual([]);
    expect(parseHostList(' GitHub.com, git.example.com:8443 ,')).toEqual([
      'github.com',
      'git.example.com:8443',
    ]);
  });

  it('refuses a scheme or a path, naming the variable', () => {
    expect(() => parseHostList('https://github.com')).toThrow(
      /SVC_GIT_TOKEN_HOSTS holds "https:\/\/github.com"/,
    );
    expect(() => parseHostList('github.com/team')).toThrow(/without a scheme or path/);
  });
});

describe('SVC_CONTROL_ALLOW_PRIVATE', () => {
  it('is off unless 1 or true', () => {
    expect(parseAllowPrivate(undefined)).toBe(false);
    expect(parseAllowPrivate('0')).toBe(false);
    expect(parseAllowPrivate('1')).toBe(true);
    expect(() => parseAllowPrivate('yes please')).toThrow(/SVC_CONTROL_ALLOW_PRIVATE is 1 or 0/);
  });
});
