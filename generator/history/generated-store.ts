/**
 * .svc/generated.json: the tool the last import generated for each tool file, the base of the
 * next import's three-way merge (issue 9). One line per tool and per shared schema, so a
 * re-import's git diff names the tools whose generated form changed and nothing else; the
 * `$defs` that hundreds of tools repeat are stored once by content hash. What the user alone
 * decides (enabled, sortOrder, widget) and what the tool file already records (`generated`)
 * are left out.
 */
import { BOOKKEEPING_DIR, type FolderFiles } from '../../folder/model.js';
import { SvcError } from '../../core/svc-error.js';
import type { SvcTool } from '../../schemas/types.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { sha256Hex } from './sha256-hex.js';

export const GENERATED_FILE = `${BOOKKEEPING_DIR}/generated.json`;

const LEFT_OUT = ['enabled', 'sortOrder', 'widget', 'stale', 'generated'] as const;
const LEFT_OUT_SET: ReadonlySet<string> = new Set(LEFT_OUT);
const SCHEMA_FIELDS = ['inputSchema', 'outputSchema'] as const;
/** Marks a `$defs` entry stored in `schemas`; no JSON Schema keyword starts with this. */
const REF = '@svc:schema ';

type Stored = Record<string, unknown>;

/**
 * The tool as stored; each `$defs` entry becomes a reference, and its canonical text goes into
 * `schemas` (by hash), serialized once here rather than again when the file is written.
 */
function stored(tool: SvcTool, schemas: Map<string, string>): Stored {
  // Copied without the left-out fields rather than copied whole and deleted from: an object
  // deleted from becomes a slow dictionary, and this one is serialized next.
  const out: Stored = {};
  for (const [k, v] of Object.entries(tool)) if (!LEFT_OUT_SET.has(k)) out[k] = v;
  for (const field of SCHEMA_FIELDS) {
    const schema = out[field] as { $defs?: Record<string, unknown> } | undefined;
    if (!schema?.$defs) continue;
    const defs: Record<string, string> = {};
    for (const [name, def] of Object.entries(schema.$defs)) {
      const text = canonicalJson(def);
      const hash = sha256Hex(text).slice(0, 16);
      schemas.set(hash, text);
      defs[name] = `${REF}${hash}`;
    }
    out[field] = { ...schema, $defs: defs };
  }
  return out;
}

/** `"key": text` lines in key order; each text is already canonical JSON. */
function entries(map: ReadonlyMap<string, string>): string {
  return [...map.keys()]
    .sort()
    .map((k) => `${JSON.stringify(k)}: ${map.get(k)}`)
    .join(',\n');
}

/** The file's text for these tools (folder key → generated tool): same tools, same bytes. */
export function renderGenerated(tools: ReadonlyMap<string, SvcTool>): string {
  const schemas = new Map<string, string>();
  const byKey = new Map<string, string>();
  for (const [key, tool] of tools) byKey.set(key, canonicalJson(stored(tool, schemas)));
  return `{\n"schemas": {\n${entries(schemas)}\n},\n"tools": {\n${entries(byKey)}\n}\n}\n`;
}

/** The stored bases, or undefined when the folder has none (it predates them). */
export function readGenerated(files: FolderFiles): Map<string, SvcTool> | undefined {
  const text = files[GENERATED_FILE];
  if (text === undefined) return undefined;
  let parsed: { schemas?: Record<string, unknown>; tools?: Record<string, Stored> };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch (cause) {
    throw new SvcError('FOLDER_INVALID', 'import bookkeeping file is not JSON', {
      place: { file: GENERATED_FILE },
      cause,
    });
  }
  const schemas = parsed.schemas ?? {};
  const out = new Map<string, SvcTool>();
  for (const [key, tool] of Object.entries(parsed.tools ?? {})) {
    const full: Stored = { ...tool, enabled: false, sortOrder: 0 };
    for (const field of SCHEMA_FIELDS) {
      const schema = full[field] as { $defs?: Record<string, unknown> } | undefined;
      if (!schema?.$defs) continue;
      const defs: Record<string, unknown> = {};
      for (const [name, ref] of Object.entries(schema.$defs)) {
        const hash = typeof ref === 'string' && ref.startsWith(REF) ? ref.slice(REF.length) : undefined;
        if (hash === undefined || !(hash in schemas)) {
          throw new SvcError('FOLDER_INVALID', `import bookkeeping lacks schema ${String(ref)}`, {
            place: { file: GENERATED_FILE, field: `tools.${key}.${field}.$defs.${name}` },
          });
        }
        defs[name] = schemas[hash];
      }
      full[field] = { ...schema, $defs: defs };
    }
    out.set(key, full as unknown as SvcTool);
  }
  return out;
}
