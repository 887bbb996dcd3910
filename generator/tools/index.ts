export { annotationsFor } from './annotations.js';
export { bodyEncoding, buildTool } from './build-tool.js';
export { type BuiltTool, buildTools } from './build-tools.js';
export { classify } from './classify.js';
export { INPUT_DEFS_BUDGET } from './compact-schema.js';
export { capText, MAX_PROPERTY_DESCRIPTION, MAX_TOOL_DESCRIPTION, toolDescription } from './describe.js';
export {
  MAX_TOOL_NAME_LENGTH,
  sanitizeToolName,
  shortenName,
  toolNameFor,
  uniqueToolNames,
} from './tool-naming.js';
