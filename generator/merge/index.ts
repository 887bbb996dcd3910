export { contentHashes, itemContentHashes } from './content-hashes.js';
export { type ContentMergeInput, type ContentMergeResult, itemFiles, mergeContent } from './merge-content.js';
export { type MergeInput, type MergeResult, mergeImport } from './merge-import.js';
export type { MergeNote } from './merge-notes.js';
export { derivedBases } from './derived-bases.js';
export { type FieldReset, mergeTool, type ToolMergeResult } from './merge-tool.js';
export { customizedFields, isCustomized, mergeTools, uniqueName } from './merge-tools.js';
export { type Conflict, type ConflictPolicy, mergeThreeWay, type Resolution } from './three-way.js';
