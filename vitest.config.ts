import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Files that need a process of their own: they check process-wide state that another file, run
 * earlier in the same worker, may have set (the V8 heap flags that `svc serve` holds at boot).
 */
const OWN_PROCESS = ['runtime/index-import.test.ts'];

const EXCLUDE = ['**/node_modules/**', 'dist/**', 'fixtures/**'];
const SOURCE_DIRS = ['action', 'cli', 'control', 'core', 'folder', 'generator', 'runtime', 'schemas'];

// Most of a file's cost used to be set-up, not its tests: a fork started and the module graph
// (runtime, generator, MCP SDK, Hono) transformed and imported again for every one of 240 files.
// The tests leave no global state behind (no module mocks, fake timers left on, process.env or
// cwd edits; servers, child processes and temp dirs are closed by each file), so a worker runs
// file after file in one process (isolate: false), importing each module once. OWN_PROCESS files
// still get a fresh process.
export default defineConfig({
  test: {
    exclude: EXCLUDE,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The end-to-end tests spend much of their time waiting on child processes, sockets and git:
    // two workers even on two cores (the default is one fewer than the cores).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        // Tests next to the sources: pure stages and in-process apps.
        extends: true,
        test: {
          name: 'unit',
          include: SOURCE_DIRS.map((dir) => `${dir}/**/*.test.ts`),
          exclude: [...EXCLUDE, ...OWN_PROCESS],
          isolate: false,
        },
      },
      {
        // End-to-end tests: real servers on loopback, the built CLI, git repositories.
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'own-process', include: OWN_PROCESS },
      },
    ],
  },
});
