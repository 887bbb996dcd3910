/**
 * Importing `svc-mcp/runtime` changes no global state: the V8 boot tuning (runtime/boot-heap.ts)
 * runs only from the runtime's entry points (runtime/main.ts, `svc serve`), never on import.
 */
import { describe, expect, it } from 'vitest';

describe('importing the runtime', () => {
  it('leaves the V8 heap flags untouched', async () => {
    const runtime = await import('./index.js');
    expect(runtime.bootHeapState()).toBe('untouched');
    // The entry's own import is what sets the flag (this worker is a process of its own).
    await import('./hold-boot-heap.js');
    expect(runtime.bootHeapState()).toBe('held');
  });
});
