import { describe, expect, it } from 'vitest';
import { nameFromPath, sanitizeToolName, shortenName, toolNameFor, uniqueToolNames } from './tool-naming.js';

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

describe('tool names', () => {
  it('comes from operationId, else from method and path', () => {
    expect(toolNameFor({ method: 'GET', path: '/users/{id}', operationId: 'getUser' })).toBe('getUser');
    expect(toolNameFor({ method: 'GET', path: '/users/{id}' })).toBe('get_users_by_id');
    expect(nameFromPath('POST', '/v1/{name}:cancel')).toBe('post_v1_by_name:cancel');
    expect(toolNameFor({ method: 'POST', path: '/v1/{name}:cancel' })).toBe('post_v1_by_name_cancel');
  });

  it('sanitizes to the MCP name alphabet', () => {
    expect(sanitizeToolName('repos/get-content')).toBe('repos_get-content');
    expect(sanitizeToolName('café.list items')).toBe('cafe_list_items');
    expect(toolNameFor({ method: 'GET', path: '/x', operationId: '???' })).toBe('get_x');
    expect(toolNameFor({ method: 'GET', path: '/', operationId: '' })).toBe('get');
  });

  it('shortens over-long names deterministically, keeping a readable head', () => {
    const long = `list_${'very_long_segment_'.repeat(6)}items`;
    const short = shortenName(long);
    expect(short).toMatch(NAME);
    expect(short.length).toBeLessThanOrEqual(64);
    expect(short.startsWith('list_very_long_segment_')).toBe(true);
    expect(shortenName(long)).toBe(short);
    expect(shortenName(`${long}_2`)).not.toBe(short);
    expect(shortenName(long, 30).length).toBeLessThanOrEqual(30);
  });

  it('resolves collisions the same way whatever the input order', () => {
    const a = { method: 'GET' as const, path: '/a', operationId: 'dup' };
    const b = { method: 'POST' as const, path: '/a', operationId: 'dup' };
    const c = { method: 'GET' as const, path: '/c', operationId: 'DUP' };
    const forward = uniqueToolNames([a, b, c]);
    const backward = uniqueToolNames([c, b, a]).reverse();
    expect(forward).toEqual(backward);
    expect(forward[0]).toBe('dup');
    expect(new Set(forward.map((n) => n.toLowerCase())).size).toBe(3);
    for (const n of forward) expect(n).toMatch(NAME);
  });

  it('keeps names unique and within the limit when long names collide', () => {
    const base = 'x'.repeat(80);
    const names = uniqueToolNames(
      Array.from({ length: 5 }, (_, i) => ({ method: 'GET' as const, path: `/p${i}`, operationId: base })),
      40,
    );
    expect(new Set(names).size).toBe(5);
    for (const n of names) expect(n.length).toBeLessThanOrEqual(40);
  });
});
