/**
 * From source text to a checked document: decode (JSON or YAML by content), recognise the
 * version, refuse or bundle external $refs (their files read beforehand: nothing here does I/O),
 * check every internal $ref resolves, and validate the structure. Nothing here dereferences:
 * later stages follow $refs themselves, so circular schemas stay finite.
 */
import type { SourceText } from '../sources/index.js';
import { decodeText } from './decode-text.js';
import { bundleExternalRefs, type ExternalFiles } from './external-refs.js';
import { assertInternalRefsResolve, collectRefs, refuseExternalRefs } from './ref-walk.js';
import { type SpecVersion, detectVersion } from './spec-version.js';
import { validateStructure } from './structural-validation.js';

export interface ParsedDocument {
  version: SpecVersion;
  /** As parsed, internal $refs intact (external ones bundled in when allowed). */
  document: Record<string, unknown>;
  title: string;
  description?: string;
  docVersion?: string;
}

export interface ParseOptions {
  allowExternalRefs?: boolean;
  /** With allowExternalRefs: the files its external $refs reach, read beforehand (parsing reads nothing). */
  externalFiles?: ExternalFiles;
  maxAliasCount?: number;
}

export async function parseDocument(source: SourceText, opts: ParseOptions = {}): Promise<ParsedDocument> {
  const decoded = await decodeText(source, opts.maxAliasCount);
  const version = detectVersion(decoded, source.origin);
  let document = decoded as Record<string, unknown>;
  let refs = collectRefs(document);
  if (refs.external.length > 0) {
    if (!opts.allowExternalRefs) refuseExternalRefs(refs.external, source.origin);
    document = await bundleExternalRefs(document, source.origin, opts.externalFiles ?? new Map());
    refs = collectRefs(document);
  }
  assertInternalRefsResolve(document, refs.internal, source.origin);
  await validateStructure(document, version, source.origin);
  const info = (document.info ?? {}) as Record<string, unknown>;
  const parsed: ParsedDocument = {
    version,
    document,
    title: typeof info.title === 'string' && info.title.trim() ? info.title.trim() : 'API',
  };
  if (typeof info.description === 'string' && info.description.trim()) {
    parsed.description = info.description.trim();
  }
  if (typeof info.version === 'string') parsed.docVersion = info.version;
  return parsed;
}
