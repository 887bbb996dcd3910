import { describe, expect, it } from 'vitest';
import { SvcError } from './svc-error.js';

describe('SvcError.describe', () => {
  it('says the place once: not again when the message names it', () => {
    const file = '/work/bad.yaml';
    expect(
      new SvcError('SOURCE_NOT_FOUND', `no OpenAPI document at ${file}`, { place: { file } }).describe(),
    ).toBe(`SOURCE_NOT_FOUND: no OpenAPI document at ${file}`);
    const url = 'http://127.0.0.1:9/x.yaml';
    expect(
      new SvcError('SOURCE_UNREACHABLE', `could not fetch ${url}: refused`, { place: { url } }).describe(),
    ).toBe(`SOURCE_UNREACHABLE: could not fetch ${url}: refused`);
  });

  it('keeps the place when the message does not name all of it', () => {
    const error = new SvcError('NOT_PUBLISHED', 'the server is not published', {
      place: { file: 'p/config.yaml', field: 'server.published' },
    });
    expect(error.describe()).toBe(
      'NOT_PUBLISHED: p/config.yaml at server.published: the server is not published',
    );
    const partly = new SvcError('FOLDER_INVALID', 'Tools/a.yaml is not valid', {
      place: { file: 'Tools/a.yaml', field: 'enabled', line: 3 },
    });
    expect(partly.describe()).toBe('FOLDER_INVALID: Tools/a.yaml:3 at enabled: Tools/a.yaml is not valid');
  });

  it('says each detail once: not the one the message already holds', () => {
    const first = "(root) must have required property 'info'";
    const error = new SvcError('SPEC_INVALID', `bad.yaml is not a valid OpenAPI 3.0 document: ${first}`, {
      place: { file: 'bad.yaml' },
      details: [first, "(root) must have required property 'paths'"],
    });
    expect(error.describe()).toBe(
      `SPEC_INVALID: bad.yaml is not a valid OpenAPI 3.0 document: ${first}\n  - (root) must have required property 'paths'`,
    );
  });
});
