/** Moved to core/ (the control service's command exits with the same codes). */
export { EXIT, exitCodeFor } from '../core/exit-codes.js';
