export { contentHashes, itemContentHashes } from './content-hashes.js';
export { type ContentMergeInput, type ContentMergeResult, itemFiles, mergeContent } from './merge-content.js';
export { type MergeInput, type MergeResult, mergeImport } from './merge-import.js';
export type { MergeNote } from './merge-notes.js';
export { customizedFields, mergeTools, uniqueName } from './merge-tools.js';
