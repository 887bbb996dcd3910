export {
  type InitialConfigInput,
  initialConfig,
  serverIdFrom,
  UPSTREAM_SECRET_ENV,
} from './initial-config.js';
export { type KeptUserFiles, keepUserFiles } from './keep-user-files.js';
