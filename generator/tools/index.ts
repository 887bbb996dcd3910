export { annotationsFor } from './annotations.js';
export { type BuildToolOptions, bodyEncoding, buildTool } from './build-tool.js';
export { type BuildToolsOptions, type BuiltTool, buildTools } from './build-tools.js';
export { classify } from './classify.js';
export { INPUT_DEFS_LIMIT } from './compact-schema.js';
export {
  capText,
  type DescriptionStyle,
  MAX_PROPERTY_DESCRIPTION,
  MAX_TOOL_DESCRIPTION,
  toolDescription,
} from './describe.js';
export {
  keepText,
  loadHtmlToMarkdown,
  looksLikeHtml,
  type MarkdownConverter,
  mayContainHtml,
} from './html-to-markdown.js';
export {
  MAX_TOOL_NAME_LENGTH,
  sanitizeToolName,
  shortenName,
  toolNameFor,
  uniqueToolNames,
} from './tool-naming.js';
