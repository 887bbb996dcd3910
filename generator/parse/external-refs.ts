/**
 * --allow-external-refs: gather every file the document's external $refs reach (and the refs of those, in
 * turn), each checked against the source policy (generator/sources/external-ref-source.ts) before it is
 * read, so a refusal names the $ref and the file and field it is written in. swagger-parser then bundles
 * them from memory: it reads nothing itself (its own file and http resolvers are switched off).
 */
import { fileURLToPath } from 'node:url';
import { SvcError } from '../../core/svc-error.js';
import { DEFAULT_MAX_SOURCE_BYTES } from '../sources/openapi-source.js';
import {
  documentUrl,
  externalRefReader,
  externalRefRefusal,
  refTarget,
} from '../sources/external-ref-source.js';
import type { HostResolver } from '../../core/private-address-resolve.js';
import { decodeText } from './decode-text.js';
import { collectRefs, placeFor, type RefUse } from './ref-walk.js';

/** Files one document may pull in: far above real multi-file specs, far below a crawl of a site. */
export const MAX_EXTERNAL_FILES = 500;

export async function bundleExternalRefs(
  document: Record<string, unknown>,
  origin: string,
  refs: readonly RefUse[],
  maxAliasCount?: number,
  resolver?: HostResolver,
): Promise<Record<string, unknown>> {
  const files = await gather(origin, refs, maxAliasCount, resolver);
  const root = documentUrl(origin);
  try {
    const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
    const parser = new SwaggerParser();
    const gathered = {
      order: 1,
      canRead: true,
      read(file: { url: string }): string {
        const text = files.get(keyOf(file.url));
        if (text === undefined) throw new Error(`${file.url} was not among the checked $ref targets`);
        return text;
      },
    };
    const bundled = await parser.bundle(
      root.href,
      structuredClone(document) as never,
      { resolve: { external: true, file: false, http: false, gathered } } as never,
    );
    return bundled as unknown as Record<string, unknown>;
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new SvcError('SPEC_EXTERNAL_REF', `could not resolve an external $ref of ${origin}: ${message}`, {
      place: placeFor(origin, ''),
      cause,
    });
  }
}

function keyOf(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.href;
  } catch {
    return url;
  }
}

/** A file's name as people read it: the URL, or the path for a local file. */
function nameOf(url: URL): string {
  return url.protocol === 'file:' ? fileURLToPath(url) : url.href;
}

async function gather(
  origin: string,
  refs: readonly RefUse[],
  maxAliasCount: number | undefined,
  resolver: HostResolver | undefined,
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
