import { describe, expect, it } from 'vitest';
import { SvcError } from '../../core/svc-error.js';
import { diffOptionsOf } from './diff-config.js';

describe('diffOptionsOf (config.yaml diff:)', () => {
  it('passes levels and the sunset grace through', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(
      diffOptionsOf({ rules: { 'response-property-enum-value-added': 'warning' }, sunsetGraceDays: 7 }, now),
    ).toEqual({
      now,
      levels: { 'response-property-enum-value-added': 'warning' },
      sunsetGraceDays: 7,
    });
    expect(diffOptionsOf(undefined)).toEqual({});
  });

  it('refuses an unknown rule id, naming the field', () => {
    let error: unknown;
    try {
      diffOptionsOf({ rules: { 'response-property-enum-added': 'info' } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).place?.field).toBe('diff.rules.response-property-enum-added');
  });
});
