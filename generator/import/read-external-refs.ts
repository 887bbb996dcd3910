/**
 * --allow-external-refs, the reading side: every file the document's external $refs reach (and the
 * refs of those, in turn), each checked against the source policy (generator/sources/external-ref-source.ts)
 * before it is read, so a refusal names the $ref and the file and field it is written in. The parser
 * then bundles them from memory (generator/parse/external-refs.ts).
 */
import { fileURLToPath } from 'node:url';
import { SvcError } from '../../core/svc-error.js';
import { decodeText } from '../parse/decode-text.js';
import { documentUrl, type ExternalFiles } from '../parse/external-refs.js';
import { collectRefs, placeFor, type RefUse } from '../parse/ref-walk.js';
import { externalRefReader, externalRefRefusal, refTarget } from '../sources/external-ref-source.js';
import { DEFAULT_MAX_SOURCE_BYTES, type SourceText } from '../sources/openapi-source.js';
import type { HostResolver } from '../../core/private-address-resolve.js';

/** Files one document may pull in: far above real multi-file specs, far below a crawl of a site. */
export const MAX_EXTERNAL_FILES = 500;

/**
 * The files the document's external $refs reach, or why they could not be read (raised by the
 * parser where it bundles them, after the document's own problems); undefined when it has none.
 */
export async function readExternalRefs(source: SourceText): Promise<ExternalFiles | undefined> {
  try {
    const refs = collectRefs(await decodeText(source)).external;
    return refs.length > 0 ? await gatherExternalRefs(source.origin, refs) : undefined;
  } catch (error) {
    return { error };
  }
}

/** A file's name as people read it: the URL, or the path for a local file. */
function nameOf(url: URL): string {
  return url.protocol === 'file:' ? fileURLToPath(url) : url.href;
}

export async function gatherExternalRefs(
  origin: string,
  refs: readonly RefUse[],
  maxAliasCount?: number,
  resolver?: HostResolver,
): Promise<Map<string, string>> {
  const root = documentUrl(origin);
  const reader = externalRefReader(root, resolver);
  const files = new Map<string, string>();
  let total = 0;
  const queue: { base: URL; where: string; refs: readonly RefUse[] }[] = [
    { base: root, where: origin, refs },
  ];
  for (let next = queue.shift(); next; next = queue.shift()) {
    for (const use of next.refs) {
      const refuse = (reason: string) =>
        new SvcError(
          'SPEC_EXTERNAL_REF',
          `$ref "${use.ref}" at ${use.at || '/'} in ${next.where} is refused: ${reason}`,
          { place: placeFor(next.where, use.at) },
        );
      const target = refTarget(next.base, use.ref);
      if (!target) throw refuse('it is neither a URL nor a path');
      const reason = externalRefRefusal(root, target);
      if (reason) throw refuse(reason);
      if (target.href === root.href || files.has(target.href)) continue;
      if (files.size >= MAX_EXTERNAL_FILES) {
        throw refuse(`the document's $refs reach more than ${MAX_EXTERNAL_FILES} files`);
      }
      // Every redirect hop and every resolved address is checked before anything is sent to it.
      const read = await reader.read(target, refuse);
      total += read.bytes;
      if (total > DEFAULT_MAX_SOURCE_BYTES) {
        throw new SvcError(
          'SOURCE_TOO_LARGE',
          `the files ${origin} refers to add up to more than ${DEFAULT_MAX_SOURCE_BYTES} bytes`,
          { place: placeFor(next.where, use.at) },
        );
      }
      files.set(target.href, read.text);
      const nested = collectRefs(await decodeText(read, maxAliasCount)).external;
      if (nested.length > 0) queue.push({ base: target, where: nameOf(target), refs: nested });
    }
  }
  return files;
}
