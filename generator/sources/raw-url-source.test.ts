import { describe, expect, test } from 'vitest';
import { expandRawUrl } from './raw-url-source.js';

describe('expandRawUrl', () => {
  test('puts the branch and the path in, each URL-encoded, slashes of the path kept', () => {
    expect(
      expandRawUrl({
        rawUrlTemplate: 'https://git.example.test/raw/{ref}/{path}?inline=1',
        branch: 'release/2.0',
        path: '/specs/my api.yaml',
      }),
    ).toBe('https://git.example.test/raw/release%2F2.0/specs/my%20api.yaml?inline=1');
  });

  test('a template without {path} is refused', () => {
    expect(() =>
      expandRawUrl({
        rawUrlTemplate: 'https://git.example.test/raw/{ref}/openapi.yaml',
        branch: 'main',
        path: 'a',
      }),
    ).toThrow(/\{path\}/);
  });
});
