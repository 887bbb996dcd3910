/** Moved to core/ (`svc control serve` waits the same way). */
export { waitForSignal } from '../core/wait-for-signal.js';
