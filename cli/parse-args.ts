/** Moved to core/ (the control service's command parses its arguments the same way). */
export { parseCommandArgs, requirePositional } from '../core/parse-args.js';
