export { type AppBuilderConfigInput, appBuilderConfig } from './app-builder-config.js';
export {
  type AuthSuggestion,
  authWarning,
  type DeclaredSchemes,
  declaredSchemes,
  suggestAuth,
} from './auth-suggestion.js';
export {
  type InitialConfigInput,
  initialConfig,
  serverIdFrom,
  UPSTREAM_SECRET_ENV,
  UPSTREAM_USER_ENV,
} from './initial-config.js';
export { type KeptUserFiles, keepUserFiles } from './keep-user-files.js';
