/**
 * A child process for crash tests: runs the real folder writer and, at a named step, kills
 * itself with SIGKILL (a crash at exactly that point) or pauses there (a live writer holding
 * the lock, until the test kills it or creates the file it waits for). Bundled with esbuild by the tests and run as
 * `node step-writer.mjs <job.json>`. It prints each step's name as the writer reaches it, so
 * a run without a step lists every step of a write.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { FolderFiles } from '../model.js';
import { writeFolder } from '../write-folder.js';

interface Job {
  dir: string;
  files: FolderFiles;
  /** The step to stop at; absent: write to the end. */
  at?: string;
  mode?: 'kill' | 'pause';
  /** For 'pause': carry on once this file exists (else stay paused until killed). */
  resumeWhen?: string;
}

const job = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as Job;
await writeFolder(job.dir, job.files, {
  beforeStep: async (step) => {
    // Writes to a pipe are synchronous on POSIX: the line is out before the process dies.
    process.stdout.write(`${step}\n`);
    if (step !== job.at) return;
    if (job.mode === 'pause') {
      process.stdout.write('paused\n');
      const resume = job.resumeWhen;
      await new Promise<void>((carryOn) => {
        const poll = setInterval(() => {
          if (resume !== undefined && existsSync(resume)) {
            clearInterval(poll);
            carryOn();
          }
        }, 5);
      });
      return;
    }
    process.kill(process.pid, 'SIGKILL');
  },
});
process.stdout.write('written\n');
