export {
  DEFAULT_MAX_SOURCE_BYTES,
  type ReadSourceOptions,
  readOpenApiSource,
  type SourceText,
} from './openapi-source.js';
export { type RawFile, readContentDir } from './content-source.js';
