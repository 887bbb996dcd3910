import configSchema from '../../schemas/config.schema.json' with { type: 'json' };
import type { SvcConfig } from '../../schemas/types.js';
import { orderKeys, type SchemaNode } from './key-order.js';
import { schemaLine, yamlText } from './yaml-text.js';

const root = configSchema as unknown as SchemaNode;

/** config.yaml: identity, source, auth placement and base URL. It never holds a secret value. */
export function renderConfig(config: SvcConfig): string {
  return renderOrderedConfig(orderedConfig(config));
}

/** The value config.yaml holds: the config with its keys in the written order. */
export function orderedConfig(config: SvcConfig): unknown {
  return orderKeys(config, root, root);
}

/** config.yaml from orderedConfig's value. */
export function renderOrderedConfig(ordered: unknown): string {
  return schemaLine('config') + yamlText(ordered);
}
