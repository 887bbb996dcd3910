/**
 * "Did you mean …?" for a mistyped command or flag: the known words within a small edit distance
 * of what was typed, closest first.
 */

import { closest } from '../core/closest-words.js';

export { closest, editDistance } from '../core/closest-words.js';

/** " Did you mean `x`?" or "" when nothing is close. */
export function didYouMean(typed: string, candidates: readonly string[], format = (c: string) => c): string {
  const [best] = closest(typed, candidates);
  return best === undefined ? '' : ` Did you mean \`${format(best)}\`?`;
}
