export { defaultBaseUrl } from './base-url.js';
export { DEFAULT_MAX_ALIAS_COUNT } from './decode-text.js';
export { type ParsedDocument, type ParseOptions, parseDocument } from './parse-document.js';
export { resolvePointer } from './ref-walk.js';
export type { SpecVersion } from './spec-version.js';
export { MAX_DOCUMENT_DEPTH } from './nesting-depth.js';
