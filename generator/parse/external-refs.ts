/**
 * --allow-external-refs: bundle the files the document's external $refs reach into internal refs, from
 * memory. The files were gathered by the import's reading side (generator/import/read-external-refs.ts),
 * each checked against the source policy before it was read; swagger-parser reads nothing itself (its own
 * file and http resolvers are switched off), so a file that was not gathered is an error, not a fetch.
 */
import { pathToFileURL } from 'node:url';
import { SvcError } from '../../core/svc-error.js';
import { placeFor } from './ref-walk.js';

/** The files of a document's external $refs, by URL (no fragment), or why they could not be read. */
export type ExternalFiles = ReadonlyMap<string, string> | { error: unknown };

/** The document's origin (URL or absolute path) as a URL, the base its $refs resolve against. */
export function documentUrl(origin: string): URL {
  return /^https?:\/\//i.test(origin) ? new URL(origin) : pathToFileURL(origin);
}

export async function bundleExternalRefs(
  document: Record<string, unknown>,
  origin: string,
  files: ExternalFiles,
): Promise<Record<string, unknown>> {
  if (!(files instanceof Map)) throw (files as { error: unknown }).error;
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
