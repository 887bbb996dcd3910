import { describe, expect, it } from 'vitest';
import { annotationsFor } from './annotations.js';
import { classify } from './classify.js';

describe('classify', () => {
  it.each([
    ['GET', '/users', 'list'],
    ['GET', '/users/{id}', 'get'],
    ['GET', '/users/{id}/addresses', 'list'],
    ['GET', '/status', 'get'],
    ['GET', '/users/me', 'get'],
    ['POST', '/users', 'create'],
    ['POST', '/users/{id}/comments', 'create'],
    ['POST', '/users/{id}/activate', 'action'],
    ['POST', '/jobs/{id}:cancel', 'action'],
    ['POST', '/search', 'action'],
    ['PUT', '/users/{id}', 'replace'],
    ['PATCH', '/users/{id}', 'update'],
    ['DELETE', '/users/{id}', 'delete'],
    ['HEAD', '/users/{id}', 'get'],
    ['OPTIONS', '/users', 'action'],
  ] as const)('%s %s → %s', (method, path, expected) => {
    expect(classify(method, path)).toBe(expected);
  });
});

describe('annotationsFor', () => {
  it('writes every hint out', () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']) {
      expect(Object.keys(annotationsFor(method)).sort()).toEqual([
        'destructiveHint',
        'idempotentHint',
        'openWorldHint',
        'readOnlyHint',
      ]);
      expect(annotationsFor(method).openWorldHint).toBe(true);
    }
  });

  it('derives the hints from the method', () => {
    expect(annotationsFor('GET')).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(annotationsFor('DELETE')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(annotationsFor('PUT')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(annotationsFor('POST')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(annotationsFor('PATCH')).toMatchObject({ readOnlyHint: false, idempotentHint: false });
  });
});
