/**
 * The one wording of "the folder did not load": the first problem in the message (with its place),
 * the others as detail lines. Used by the importer (the folder it read, the folder it would write),
 * the export and the CLI; the runtime and the control service can use it too.
 */
import { SvcError } from '../core/svc-error.js';

/**
 * A FOLDER_INVALID error for the problems `loadFolder` (or a render check) found. `subject` names
 * the folder as the reader knows it: "the server folder", "the imported folder", a path.
 */
export function folderInvalid(problems: readonly SvcError[], subject = 'the folder'): SvcError {
  const first = problems[0];
  return new SvcError('FOLDER_INVALID', `${subject} is not valid: ${first?.message ?? 'unknown problem'}`, {
    place: first?.place ?? {},
    details: problems.slice(1).map((e) => e.describe()),
  });
}
