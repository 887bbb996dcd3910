export { type ManualToolInput, manualEndpoint, manualTool } from './manual-tool.js';
export { PARAM_LOCATIONS, PARAM_TYPES, type ParamSpec, parseParamSpec } from './param-spec.js';
