/**
 * The known words close to a mistyped one, closest first: for "did you mean …?" in the CLI
 * (commands, flags) and in schema violations (unknown keys, values outside an enum).
 */

/** Levenshtein distance: insertions, deletions and substitutions, each costing one. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The candidates close enough to `typed` to be what was meant (a third of its length, at least 1, at most 3). */
export function closest(typed: string, candidates: readonly string[]): string[] {
  const limit = Math.min(3, Math.max(1, Math.floor(typed.length / 3)));
  return candidates
    .map((candidate) => ({ candidate, distance: editDistance(typed, candidate) }))
    .filter((c) => c.distance <= limit || (typed.length >= 3 && c.candidate.startsWith(typed)))
    .sort((x, y) => x.distance - y.distance || x.candidate.localeCompare(y.candidate))
    .map((c) => c.candidate);
}

/** " Did you mean `x`?" or "" when nothing is close. */
export function didYouMean(typed: string, candidates: readonly string[], format = (c: string) => c): string {
  const [best] = closest(typed, candidates);
  return best === undefined ? '' : ` Did you mean \`${format(best)}\`?`;
}
