export { type ChecklistKind, type ChecklistRow, checklistKindOfPath } from './checklist.js';
export { importFolder } from './import-folder.js';
export { writeManualFolder } from './manual-folder.js';
export type { ImportOptions, ImportResult, PreviousFolder, SourceBundle } from './import-types.js';
export { type ImportPlan, type PlanOptions, planImport } from './plan-import.js';
export { openPrevious } from './open-previous.js';
