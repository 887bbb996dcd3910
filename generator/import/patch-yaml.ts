/**
 * A tool file people formatted or commented by hand keeps that layout through a re-import: the
 * merged value is written into the file's own YAML document (changed keys only), so comments,
 * key order and styles of everything else survive. Undefined when the file cannot be read as
 * one document or the patched text would not read back as exactly the merged value; the caller
 * then renders the file afresh.
 */
import { parseDocument } from 'yaml';
import { isPlainObject } from '../../core/is-plain-object.js';
import { sameJson } from '../../core/canonical-json.js';

type Path = (string | number)[];

export function patchYaml(text: string, value: Record<string, unknown>): string | undefined {
  const doc = parseDocument(text);
  if (doc.errors.length > 0 || doc.warnings.length > 0) return undefined;
  const old = doc.toJS() as unknown;
  if (!isPlainObject(old)) return undefined;
  const patch = (path: Path, before: unknown, after: unknown): void => {
    if (isPlainObject(before) && isPlainObject(after)) {
      for (const k of Object.keys(before))
        if (!(k in after) || after[k] === undefined) doc.deleteIn([...path, k]);
      for (const [k, v] of Object.entries(after)) {
        if (v === undefined) continue;
        if (k in before) patch([...path, k], before[k], v);
        else doc.setIn([...path, k], doc.createNode(v));
      }
      return;
    }
    if (!sameJson(before, after)) doc.setIn(path, doc.createNode(after));
  };
  patch([], old, value);
  const out = doc.toString({ lineWidth: 0, blockQuote: 'literal' });
  const check = parseDocument(out);
  if (check.errors.length > 0 || !sameJson(check.toJS(), value)) return undefined;
  return out;
}
