export { exportFolder } from './export-folder.js';
export { orderKeys, sortKeysDeep } from './key-order.js';
export { RUNTIME_IMAGE, renderCompose } from './render-compose.js';
export { renderConfig } from './render-config.js';
export { renderContent, renderMarkdownItem, renderWidgetSidecar } from './render-content.js';
export { envVariables, renderEnvExample } from './render-env-example.js';
export { GITIGNORE_FILE, renderGitignore } from './render-gitignore.js';
export {
  OPENAPI_FILE,
  type RenderExtras,
  renderEmptyFolder,
  renderFolder,
  renderFolderChecked,
  renderFolderFrame,
  renderOpenApi,
  toolFile,
} from './render-folder.js';
export { README_SIGNATURE, renderReadme } from './render-readme.js';
export { renderTool, TOOL_KEY_ORDER } from './render-tool.js';
export { schemaLine, yamlText } from './yaml-text.js';
