/**
 * The real CLI for crash tests of `svc source set`: bundled with esbuild and run as
 * `node source-set-steps.mjs source set …`, with KILL_AT_STEP naming the step of an app's
 * provider change at which the process kills itself with SIGKILL (a crash at exactly that point).
 * Importing cli/main.js runs the CLI on this process's arguments (the bundle is its entry); the
 * hook is set before the command reaches its first await that matters.
 */
import { appChangeSteps } from '../../cli/commands/source.js';
import '../../cli/main.js';

const at = process.env.KILL_AT_STEP;
appChangeSteps.beforeStep = (step) => {
  // Writes to a pipe are synchronous on POSIX: the line is out before the process dies.
  process.stdout.write(`step ${step}\n`);
  if (step === at) process.kill(process.pid, 'SIGKILL');
};
