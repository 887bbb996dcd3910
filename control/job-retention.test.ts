import { describe, expect, it } from 'vitest';
import { DEFAULT_KEEP_JOBS, parseKeepJobs } from './job-retention.js';

describe('parseKeepJobs', () => {
  it('takes a whole number of at least 1, the default when absent, and refuses the rest', () => {
    expect(parseKeepJobs(undefined)).toBe(DEFAULT_KEEP_JOBS);
    expect(parseKeepJobs(' ')).toBe(200);
    expect(parseKeepJobs('25')).toBe(25);
    for (const bad of ['0', '-1', '2.5', 'many', '1e3'])
      expect(() => parseKeepJobs(bad, '--keep-jobs')).toThrow(/--keep-jobs must be a whole number/);
  });
});
