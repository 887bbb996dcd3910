export { type ChecklistKind, type ChecklistRow, checklistKindOfPath } from './checklist.js';
export { type ImportOptions, type ImportResult, runImport } from './run-import.js';
