/**
 * `npm run bench`: every figure the issues name, measured in one run on this machine so that
 * ratios compare like with like. Medians throughout. Never part of `npm test`.
 *
 *   npm run bench                  all sections
 *   npm run bench -- import diff   only some (cli, commands, import, runtime, ops, diff, discovery, control, control-job, git, fleet, auth, workers)
 *   npm run bench -- runtime --quick  a short runtime run (fewer warm-up calls, one round)
 */
import { runAuthBench } from './auth-bench.js';
import { runCliBench } from './cli-bench.js';
import { runCommandsBench } from './commands-bench.js';
import { runControlBench, runImportJobBench } from './control-bench.js';
import { runDiffBench } from './diff-bench.js';
import { runDiscoveryBench } from './discovery-bench.js';
import { runFleetBench } from './fleet-bench.js';
import { runGitBench } from './git-bench.js';
import { runImportBench } from './import-bench.js';
import { runOpsRows, runRuntimeBench } from './runtime-bench.js';
import { runWorkersBench } from './workers-bench.js';

const sections: Record<string, () => Promise<unknown>> = {
  cli: runCliBench,
  commands: runCommandsBench,
  import: runImportBench,
  runtime: runRuntimeBench,
  // The operations rows alone (they also end the runtime section).
  ops: () => runOpsRows(),
  diff: runDiffBench,
  discovery: runDiscoveryBench,
  control: runControlBench,
  'control-job': runImportJobBench,
  git: runGitBench,
  fleet: runFleetBench,
  auth: runAuthBench,
  workers: runWorkersBench,
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = wanted.length > 0 ? wanted : Object.keys(sections);
for (const name of names) {
  const section = sections[name];
  if (!section) {
    console.error(`unknown bench section "${name}" (have: ${Object.keys(sections).join(', ')})`);
    process.exitCode = 2;
    continue;
  }
  console.log(`\n## ${name}\n`);
  await section();
}
