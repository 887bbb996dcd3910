/**
 * Key order for rendered files: the order of `properties` in our JSON Schemas (a fixed,
 * readable order, not alphabetical), keys the schema does not name after them in the order
 * given. Maps without a schema (an input schema's properties, locations) keep their order:
 * it is meaningful there and the generator already produces it deterministically.
 */
export interface SchemaNode {
  $ref?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  oneOf?: SchemaNode[];
  $defs?: Record<string, SchemaNode>;
}

export function orderKeys(
  value: unknown,
  node: SchemaNode | undefined,
  root: SchemaNode,
  first?: readonly string[],
): unknown {
  // Below the schema's reach (an input schema's insides) the value is written as it is.
  if (node === undefined && first === undefined) return value;
  if (Array.isArray(value)) {
    const itemNode = node ? resolve(node, root).items : undefined;
    return value.map((v) => orderKeys(v, itemNode, root));
  }
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  const resolved = node ? resolve(node, root) : undefined;
  const props = resolved ? propertiesOf(resolved, root) : {};
  const named = first ?? Object.keys(props);
  const keys = [...named.filter((k) => k in obj), ...Object.keys(obj).filter((k) => !named.includes(k))];
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    const additional = resolved?.additionalProperties;
    const child = props[k] ?? (typeof additional === 'object' ? additional : undefined);
    out[k] = orderKeys(v, child, root);
  }
  return out;
}

/** Sorted keys at every depth (JSON sidecars, where no order is meaningful). */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(obj).sort()) if (obj[k] !== undefined) out[k] = sortKeysDeep(obj[k]);
  return out;
}

function resolve(node: SchemaNode, root: SchemaNode): SchemaNode {
  let current = node;
  for (let hops = 0; current.$ref?.startsWith('#/$defs/') && hops < 8; hops++) {
    const target = root.$defs?.[current.$ref.slice('#/$defs/'.length)];
    if (!target) break;
    current = target;
  }
  return current;
}

/** Properties of a node; for a oneOf, the union of its branches' properties in first-seen order. */
function propertiesOf(node: SchemaNode, root: SchemaNode): Record<string, SchemaNode> {
  if (node.properties) return node.properties;
  const out: Record<string, SchemaNode> = {};
  for (const branch of node.oneOf ?? []) {
    for (const [k, v] of Object.entries(resolve(branch, root).properties ?? {})) if (!(k in out)) out[k] = v;
  }
  return out;
}
