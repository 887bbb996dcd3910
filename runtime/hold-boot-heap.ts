/**
 * Holds the young generation at its initial size for the boot (runtime/boot-heap.ts). Imported
 * first by the runtime's entry point (runtime/main.ts) so it runs before any of the SDK's
 * modules; never imported by the library (runtime/index.ts), which changes no global state.
 */
import { holdBootHeap } from './boot-heap.js';

holdBootHeap();
