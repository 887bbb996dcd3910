/** Planning, step 2: the content directory's files → content items (spec 2.5). */
import { SvcError } from '../../core/svc-error.js';
import type { ContentItems } from '../../folder/model.js';
import { parseContent } from '../content/index.js';
import { type Checklist, checklistKindOfPath } from './checklist.js';
import { CONTENT_ROWS } from './checklist-settle.js';
import { asSvcError, StepFailure } from './failed-import.js';
import type { SourceBundle } from './import-types.js';

export { CONTENT_ROWS } from './checklist-settle.js';

/** Undefined when the import has no content directory. */
export function planContent(bundle: SourceBundle, checklist: Checklist): ContentItems | undefined {
  if (bundle.content === undefined) return undefined;
  checklist.processing(CONTENT_ROWS);
  let parsed: ReturnType<typeof parseContent>;
  try {
    if (!Array.isArray(bundle.content)) throw bundle.content.error;
    parsed = parseContent(bundle.content);
  } catch (error) {
    throw new StepFailure('resources', asSvcError(error));
  }
  if (parsed.ok) return parsed.items;
  const first = parsed.errors[0]!;
  const error = new SvcError(first.code, first.message, {
    place: first.place,
    details: parsed.errors.slice(1).map((e) => e.describe()),
  });
  throw new StepFailure(checklistKindOfPath(first.place.file) ?? 'resources', error);
}
