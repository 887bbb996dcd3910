/**
 * Two values of one field (yours and now, before and after), each cut to fit a line so that the
 * part where they differ shows: a long schema edited deep inside must not be cut at a prefix the
 * two share, leaving `yours {"oneOf":[{"type":…} → now {"oneOf":[{"type":…}` with no visible
 * difference. The shared start and end are elided with `…`, keeping a little context.
 */

/** A value as one line of JSON text; a string as it is (when `rawStrings`) or quoted. */
function asText(v: unknown, rawStrings: boolean): string | undefined {
  if (v === undefined) return undefined;
  return typeof v === 'string' && rawStrings ? v : JSON.stringify(v);
}

const CONTEXT = 12;

function cut(text: string, from: number, to: number, max: number): string {
  // Window [from, to) is where the difference lies; widen by some context, then cap at max.
  let start = Math.max(0, from - CONTEXT);
  let end = Math.min(text.length, Math.max(to, from) + CONTEXT);
  if (end - start > max) end = start + max;
  if (start > 0 && end - start < max) start = Math.max(0, end - max);
  const head = start > 0 ? '…' : '';
  const tail = end < text.length ? '…' : '';
  return `${head}${text.slice(start + (head ? 1 : 0), end - (tail ? 1 : 0))}${tail}`;
}

/**
 * The two values as shown: whole when each fits in `max` characters, else each around the first
 * place they differ. `undefined` stays undefined (the caller writes "(none)").
 */
export function shownPair(
  a: unknown,
  b: unknown,
  max: number,
  rawStrings = false,
): [string | undefined, string | undefined] {
  const ta = asText(a, rawStrings);
  const tb = asText(b, rawStrings);
  const fits = (t: string | undefined) => t === undefined || t.length <= max;
  if (fits(ta) && fits(tb)) return [ta, tb];
  if (ta === undefined || tb === undefined) {
    const whole = (t: string | undefined) =>
      t === undefined || t.length <= max ? t : `${t.slice(0, max - 1)}…`;
    return [whole(ta), whole(tb)];
  }
  let prefix = 0;
  while (prefix < ta.length && prefix < tb.length && ta[prefix] === tb[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < ta.length - prefix &&
    suffix < tb.length - prefix &&
    ta[ta.length - 1 - suffix] === tb[tb.length - 1 - suffix]
  )
    suffix++;
  return [cut(ta, prefix, ta.length - suffix, max), cut(tb, prefix, tb.length - suffix, max)];
}
