import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { grepTerms, setEnabled } from './tool.js';

describe('setEnabled', () => {
  it('changes only the enabled line, keeping its comment', () => {
    const text = '# mine\nname: a\nenabled: false # off for now\ndescription: |\n  enabled: false\n';
    expect(setEnabled(text, true)).toBe(
      '# mine\nname: a\nenabled: true # off for now\ndescription: |\n  enabled: false\n',
    );
  });
  it('patches a file without a plain enabled line through its YAML document', () => {
    const flow = '{name: a, enabled: false, endpoint: {method: GET, path: /a}}\n';
    expect(parse(setEnabled(flow, true))).toEqual({
      name: 'a',
      enabled: true,
      endpoint: { method: 'GET', path: '/a' },
    });
    expect(parse(setEnabled('name: a\n', true))).toEqual({ name: 'a', enabled: true });
  });
});

describe('grepTerms', () => {
  it('splits alternatives, lower-cases and drops empty ones', () => {
    expect(grepTerms('GET /Pets| delete ||')).toEqual(['get /pets', 'delete']);
  });
});
