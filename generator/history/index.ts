export { sha256Hex } from './sha256-hex.js';
export {
  EndpointHasher,
  type EndpointStores,
  type HashedEndpoints,
  hashEndpoints,
  loadEndpoints,
  readStores,
  storeEndpoints,
} from './endpoint-store.js';
export { type BookkeepingInput, nextBookkeeping } from './next-bookkeeping.js';
export { GENERATED_FILE, readGenerated, renderGenerated } from './generated-store.js';
export {
  ENDPOINTS_DIR,
  FOLDER_DOCUMENT,
  HISTORY_DIR,
  historyPath,
  isBookkeeping,
  RETAINED_SPECS,
  SPECS_DIR,
  specPath,
  UNCHANGED_FILE,
  WRITTEN_FILE,
} from './paths.js';
export { lastComplete, nextSeq, readHistory, readWritten } from './read-history.js';
