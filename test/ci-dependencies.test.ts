/**
 * Several suites skip when a program they drive is not installed (Chromium, PostgreSQL,
 * Prometheus, haproxy), so that `npm test` still runs on a laptop without them. In CI nothing
 * may skip for that reason: `.ci/run` installs them, and this test fails when one is missing.
 */
import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';
import { postgresMissingReason } from '../control/testing/postgres-cluster.js';
import { haproxyBinary } from '../runtime/testing/haproxy.js';
import { chromiumMissing } from './helpers/headless-chromium.js';

it.runIf(process.env.CI === 'true' || process.env.CI === '1')(
  'in CI, every program the suites drive is installed (nothing skips)',
  () => {
    const missing = [
      ...(chromiumMissing ? [`chromium: ${chromiumMissing}`] : []),
      ...(postgresMissingReason() ? [`postgresql: ${postgresMissingReason()}`] : []),
      ...(existsSync('/usr/bin/prometheus') ? [] : ['prometheus: /usr/bin/prometheus']),
      ...(haproxyBinary() ? [] : ['haproxy']),
    ];
    expect(missing, 'install them in .ci/run').toEqual([]);
  },
);
