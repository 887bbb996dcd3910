/**
 * "Did you mean …?" for a mistyped command or flag: the known words within a small edit distance
 * of what was typed, closest first (core/closest-words.ts, shared with the control service's command).
 */
export { closest, didYouMean, editDistance } from '../core/closest-words.js';
