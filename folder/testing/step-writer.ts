/**
 * A child process for crash tests: runs the real folder writer and, at a named step, kills
 * itself with SIGKILL (a crash at exactly that point) or pauses there (a live writer holding
 * the lock, until the test kills it). Bundled with esbuild by the tests and run as
 * `node step-writer.mjs <job.json>`. It prints each step's name as the writer reaches it, so
 * a run without a step lists every step of a write.
 */
import { readFileSync } from 'node:fs';
import type { FolderFiles } from '../model.js';
import { writeFolder } from '../write-folder.js';

interface Job {
  dir: string;
  files: FolderFiles;
  /** The step to stop at; absent: write to the end. */
  at?: string;
  mode?: 'kill' | 'pause';
}

const job = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as Job;
await writeFolder(job.dir, job.files, {
  beforeStep: async (step) => {
    // Writes to a pipe are synchronous on POSIX: the line is out before the process dies.
    process.stdout.write(`${step}\n`);
    if (step !== job.at) return;
    if (job.mode === 'pause') {
      process.stdout.write('paused\n');
      setInterval(() => undefined, 60_000);
      await new Promise(() => undefined);
    }
    process.kill(process.pid, 'SIGKILL');
  },
});
process.stdout.write('written\n');
