/** Moved to core/ (the control service's command reports errors the same way). */
export { fail } from '../core/fail.js';
