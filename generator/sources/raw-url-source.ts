/**
 * "Other git (raw URL)" (spec 2.2): one file fetched through a template whose `{ref}` is the
 * branch and `{path}` the document's path, with an optional Bearer token. A raw URL cannot list
 * a directory, so this source brings tools only (spec 2.5 rule 9).
 */
import { SvcError } from '../../core/svc-error.js';
import type { AddressPolicy } from './address-policy.js';
import { readOpenApiSource, type SourceText } from './openapi-source.js';

export interface RawUrlSpec {
  rawUrlTemplate: string;
  branch: string;
  path: string;
}

/** The document's URL: each `{ref}` and `{path}` replaced, path segments URL-encoded one by one. */
export function expandRawUrl(spec: RawUrlSpec): string {
  if (!spec.rawUrlTemplate.includes('{path}')) {
    throw new SvcError('USAGE', 'the raw URL template must contain {path} (and usually {ref})', {
      place: { field: 'source.rawUrlTemplate' },
    });
  }
  const path = spec.path
    .replace(/^\/+/, '')
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
  return spec.rawUrlTemplate.replaceAll('{ref}', encodeURIComponent(spec.branch)).replaceAll('{path}', path);
}

export async function readRawUrlSource(
  spec: RawUrlSpec,
  opts: { token?: string; cwd: string; policy?: AddressPolicy },
): Promise<SourceText> {
  // readOpenApiSource sends the header to the template's origin only, never after a redirect elsewhere.
  return readOpenApiSource(expandRawUrl(spec), {
    cwd: opts.cwd,
    ...(opts.policy ? { policy: opts.policy } : {}),
    ...(opts.token ? { headers: { authorization: `Bearer ${opts.token}` } } : {}),
  });
}
