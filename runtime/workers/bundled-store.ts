/**
 * The config store of a Workers bundle: one config, the folder bundled at build time, compiled
 * with the validators generated at build time. The folder passed `svc validate`'s checks when the
 * bundle was built, so nothing is checked again here (the checks compile schemas with Ajv, which
 * a Worker cannot: no code generation from strings at run time). It never swaps.
 */
import type { FolderModel } from '../../folder/model.js';
import type { ConfigStore } from '../config-store.js';
import { compileConfig, type LoadedConfig, type SchemaCompiler } from '../loaded-config.js';

export interface BundledConfig {
  folder: FolderModel;
  /** folderDigest of the folder as it was on disk (before disabled tools were left out). */
  digest: string;
  commit?: string;
}

export function bundledStore(bundle: BundledConfig, compileSchema: SchemaCompiler): ConfigStore {
  const compiled = compileConfig(bundle.folder, 1, compileSchema);
  // The digest names the folder on disk, so a Worker and a Node replica of one folder agree on it.
  Object.defineProperty(compiled, 'digest', { value: bundle.digest });
  if (bundle.commit) compiled.commit = bundle.commit;
  const config: LoadedConfig = compiled;
  return {
    current: () => config,
    version: () => config.version,
    find: (prefix) => (prefix.length >= 16 && config.digest.startsWith(prefix) ? config : undefined),
    swap() {
      throw new Error(
        'a Workers bundle serves the folder it was built with: rebuild it to change the config',
      );
    },
    onSwap: () => () => undefined,
  };
}
