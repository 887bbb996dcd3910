/**
 * `svc help` and `svc --version` start about as fast as node itself: no command's code (the
 * generator, the runtime, their libraries) is loaded until that command runs. `svc init` of
 * Petstore stays well under a second.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { measureStartup } from '../bench/cli-bench.js';
import { BUILT_CLI, ensureBuilt } from './helpers/built-cli.js';

beforeAll(ensureBuilt, 120_000);

describe('svc startup', () => {
  it('answers help and --version within 150 ms and 15 MB of bare node', () => {
    const [node, version, help] = measureStartup(BUILT_CLI, 5, false);
    if (!node || !version || !help) throw new Error('missing figures');
    for (const figure of [version, help]) {
      expect(figure.medianMs - node.medianMs, figure.label).toBeLessThan(150);
      expect(figure.medianRssMb - node.medianRssMb, figure.label).toBeLessThan(15);
    }
  }, 120_000);

  it('inits Petstore loading only what init needs', () => {
    // CPU time, not wall time: on a busy machine the wall clock mostly measures the neighbours.
    const [node, , , init] = measureStartup(BUILT_CLI, 3, true);
    if (!node || !init) throw new Error('missing figures');
    expect(init.medianCpuMs - node.medianCpuMs).toBeLessThan(550);
    expect(init.medianRssMb - node.medianRssMb).toBeLessThan(55);
  }, 120_000);
});
