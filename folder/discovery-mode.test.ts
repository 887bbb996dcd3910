import { describe, expect, it } from 'vitest';
import { AUTO_MAX_BYTES, AUTO_MAX_TOOLS, decideMode, listBytes, META_TOOLS } from './discovery-mode.js';

describe('decideMode', () => {
  it('keeps an explicit setting whatever the size', () => {
    expect(decideMode('all', 5000, 10_000_000)).toEqual({ setting: 'all', mode: 'all' });
    expect(decideMode('search', 1, 100)).toEqual({ setting: 'search', mode: 'search' });
  });

  it('auto (also when absent) turns to search past 40 tools or 32 KB, and says why', () => {
    expect(decideMode(undefined, AUTO_MAX_TOOLS, 1000).mode).toBe('all');
    const many = decideMode(undefined, AUTO_MAX_TOOLS + 1, 1000);
    expect(many).toMatchObject({ setting: 'auto', mode: 'search' });
    expect(many.reason).toBe('41 enabled tools (more than 40)');
    expect(decideMode('auto', 3, AUTO_MAX_BYTES).mode).toBe('all');
    const big = decideMode('auto', 3, AUTO_MAX_BYTES + 1);
    expect(big.mode).toBe('search');
    expect(big.reason).toMatch(/^tools\/list would be 32\.0 KB \(more than 32\.0 KB\)$/);
  });

  it('measures tools/list as a client receives it, and the meta-tools stay small', () => {
    expect(listBytes([])).toBe(Buffer.byteLength('{"tools":[]}'));
    expect(listBytes(META_TOOLS)).toBeLessThan(2048);
    for (const tool of META_TOOLS) expect(tool.inputSchema.type).toBe('object');
  });
});
