/**
 * The `diff:` block of config.yaml as diff options: rule levels raised, lowered or turned off,
 * and the grace after a sunset. Pure; an unknown rule id is an error that names the field, so a
 * typo never silently leaves a rule at its default.
 */
import { SvcError } from '../../core/svc-error.js';
import type { SvcConfig } from '../../schemas/types.js';
import type { DiffOptions } from './diff-endpoints.js';
import { isRuleId } from './rules.js';

export function diffOptionsOf(diff: SvcConfig['diff'], now?: Date): DiffOptions {
  const options: DiffOptions = {};
  if (now) options.now = now;
  if (!diff) return options;
  if (diff.rules) {
    for (const id of Object.keys(diff.rules)) {
      if (!isRuleId(id)) {
        throw new SvcError(
          'FOLDER_INVALID',
          `diff.rules: unknown rule id "${id}" (docs/diff-rules.md lists them)`,
          {
            place: { file: 'config.yaml', field: `diff.rules.${id}` },
          },
        );
      }
    }
    options.levels = diff.rules;
  }
  if (diff.sunsetGraceDays !== undefined) options.sunsetGraceDays = diff.sunsetGraceDays;
  return options;
}
