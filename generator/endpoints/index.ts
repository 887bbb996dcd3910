export { endpointFingerprint } from './endpoint-fingerprint.js';
export { DEFS_PREFIX, type JsonSchema } from './schema-convert.js';
export {
  compareStrings,
  mediaRangeAdmitsJson,
  METHOD_ORDER,
  pickRequestContentType,
  toEndpoints,
} from './to-endpoints.js';
export { toWebhooks } from './to-webhooks.js';
export { type LedgerEntry, UNSUPPORTED_LEDGER } from './unsupported-ledger.js';
