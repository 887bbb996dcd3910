/**
 * The action's entry (bundled into action/dist/index.js): wires the process to runAction and maps its
 * result to the exit code. Nothing else lives here.
 */
import { runAction } from './run-action.js';
import { svcEngine } from './svc-engine.js';

runAction({ env: process.env, engine: svcEngine, fetch: globalThis.fetch }).then(
  (result) => {
    process.exitCode = result.exitCode;
  },
  (error: unknown) => {
    process.stdout.write(`::error::svc: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
