/**
 * One walk over the raw document that finds every $ref: internal ones must point at something,
 * external ones (another file or a URL) are refused unless the user allowed them, because
 * fetching them is a request the user did not ask for (SSRF, local file reads).
 */
import { SvcError } from '../../core/svc-error.js';

export interface RefUse {
  ref: string;
  /** JSON pointer of the object holding the $ref. */
  at: string;
}

export interface CollectedRefs {
  internal: RefUse[];
  external: RefUse[];
}

/** The $refs of a document decoded last, found by decoding's walk (decode-text.ts), taken once. */
const collected = new WeakMap<object, CollectedRefs>();

export function rememberRefs(document: object, refs: CollectedRefs): void {
  collected.set(document, refs);
}

export function collectRefs(document: unknown): CollectedRefs {
  if (document !== null && typeof document === 'object') {
    const known = collected.get(document);
    if (known) {
      // Taken once: a document changed after (external refs bundled in) is walked again.
      collected.delete(document);
      return known;
    }
  }
  const internal: RefUse[] = [];
  const external: RefUse[] = [];
  // Segments are kept on a stack and joined only where a $ref is found: building a pointer
  // string for every node of a 13 MB document costs more than the walk itself.
  const segments: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child = node[i];
        if (child !== null && typeof child === 'object') {
          segments.push(String(i));
          visit(child);
          segments.pop();
        }
      }
      return;
    }
    const record = node as Record<string, unknown>;
    const ref = record.$ref;
    if (typeof ref === 'string') {
      const at = segments.length === 0 ? '' : `/${segments.map(escapePointer).join('/')}`;
      (ref.startsWith('#') ? internal : external).push({ ref, at });
    }
    for (const key in record) {
      const child = record[key];
      if (child !== null && typeof child === 'object') {
        segments.push(key);
        visit(child);
        segments.pop();
      }
    }
  };
  if (document !== null && typeof document === 'object') visit(document);
  return { internal, external };
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Looks up a "#/a/b" reference in the document; undefined when it does not resolve. */
export function resolvePointer(document: unknown, ref: string): unknown {
  if (ref === '#' || ref === '#/') return document;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = document;
  for (const raw of ref.slice(2).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (node === null || typeof node !== 'object') return undefined;
    if (!Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

export function assertInternalRefsResolve(document: unknown, refs: readonly RefUse[], origin: string): void {
  const checked = new Set<string>();
  const broken: RefUse[] = [];
  for (const use of refs) {
    if (checked.has(use.ref)) continue;
    checked.add(use.ref);
    if (resolvePointer(document, use.ref) === undefined) broken.push(use);
  }
  if (broken.length === 0) return;
  const first = broken[0]!;
  throw new SvcError(
    'SPEC_INVALID',
    `$ref "${first.ref}" at ${first.at || '/'} points at nothing in ${origin}`,
    {
      place: placeFor(origin, first.at),
      details: broken.slice(0, 20).map((b) => `${b.at || '/'}: $ref "${b.ref}" does not resolve`),
    },
  );
}

export function refuseExternalRefs(refs: readonly RefUse[], origin: string): void {
  if (refs.length === 0) return;
  const first = refs[0]!;
  throw new SvcError(
    'SPEC_EXTERNAL_REF',
    `${origin} has an external $ref "${first.ref}" at ${first.at}; external references are not fetched unless allowed (--allow-external-refs)`,
    {
      place: placeFor(origin, first.at),
      details: refs.slice(0, 20).map((r) => `${r.at}: $ref "${r.ref}"`),
    },
  );
}

export function placeFor(origin: string, field: string): { file?: string; url?: string; field: string } {
  return /^https?:\/\//i.test(origin) ? { url: origin, field } : { file: origin, field };
}
