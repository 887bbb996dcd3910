export {
  type InitialConfigInput,
  initialConfig,
  serverIdFrom,
  UPSTREAM_SECRET_ENV,
} from './initial-config.js';
