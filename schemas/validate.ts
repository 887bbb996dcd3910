/**
 * One ajv validator per contract schema, precompiled (schemas/compiled/). A validation returns
 * a value, never throws: `{ ok: true, value }` or `{ ok: false, errors }` where each error
 * names the field (a JSON pointer) and what is wrong with it.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { closest } from '../core/closest-words.js';
import * as compiled from './compiled/contract-validators.js';
import configSchema from './config.schema.json' with { type: 'json' };
import docSchema from './doc.schema.json' with { type: 'json' };
import endpointSchema from './endpoint.schema.json' with { type: 'json' };
import exportSchema from './export.schema.json' with { type: 'json' };
import historySchema from './history.schema.json' with { type: 'json' };
import promptSchema from './prompt.schema.json' with { type: 'json' };
import reportSchema from './report.schema.json' with { type: 'json' };
import resourceSchema from './resource.schema.json' with { type: 'json' };
import skillSchema from './skill.schema.json' with { type: 'json' };
import toolSchema from './tool.schema.json' with { type: 'json' };
import type {
  DocFrontmatter,
  Endpoint,
  HistoryRecord,
  ImportReport,
  PromptFrontmatter,
  ResourceFrontmatter,
  SkillFrontmatter,
  SvcConfig,
  SvcExport,
  SvcTool,
  WidgetSidecar,
} from './types.js';
import widgetSchema from './widget.schema.json' with { type: 'json' };

export interface SchemaTypes {
  config: SvcConfig;
  tool: SvcTool;
  endpoint: Endpoint;
  skill: SkillFrontmatter;
  prompt: PromptFrontmatter;
  resource: ResourceFrontmatter;
  doc: DocFrontmatter;
  widget: WidgetSidecar;
  export: SvcExport;
  report: ImportReport;
  history: HistoryRecord;
}
export type SchemaName = keyof SchemaTypes;

const schemas: Record<SchemaName, { $id: string }> = {
  config: configSchema,
  tool: toolSchema,
  endpoint: endpointSchema,
  skill: skillSchema,
  prompt: promptSchema,
  resource: resourceSchema,
  doc: docSchema,
  widget: widgetSchema,
  export: exportSchema,
  report: reportSchema,
  history: historySchema,
};

/** The $id of each contract schema, used in generated files' yaml-language-server line. */
export function schemaId(name: SchemaName): string {
  return schemas[name].$id;
}

export interface SchemaViolation {
  /** JSON pointer of the offending field ("" for the root). */
  field: string;
  message: string;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; errors: SchemaViolation[] };

/**
 * The validators, compiled at build time (`npm run schemas:compile`) with the options of
 * schemas/compiled/generate-validators.mjs: no command compiles the contract at run time.
 * compiled/validators.test.ts checks they are fresh and answer exactly as a fresh compile does.
 */
const validators: Record<SchemaName, unknown> = {
  config: compiled.configValidator,
  tool: compiled.toolValidator,
  endpoint: compiled.endpointValidator,
  skill: compiled.skillValidator,
  prompt: compiled.promptValidator,
  resource: compiled.resourceValidator,
  doc: compiled.docValidator,
  widget: compiled.widgetValidator,
  export: compiled.exportValidator,
  report: compiled.reportValidator,
  history: compiled.historyValidator,
};

export function validatorFor(name: SchemaName): ValidateFunction {
  const fn = validators[name];
  if (!fn) throw new Error(`schema ${name} is not registered`);
  return fn as ValidateFunction;
}

export function validate<N extends SchemaName>(name: N, value: unknown): Validation<SchemaTypes[N]> {
  const fn = validatorFor(name);
  if (fn(value)) return { ok: true, value: value as SchemaTypes[N] };
  return { ok: false, errors: describeAjvErrors(fn.errors ?? []) };
}

/** Turns ajv's errors into one line per problem, deduplicated, most specific first. */
export function describeAjvErrors(errors: readonly ErrorObject[]): SchemaViolation[] {
  const seen = new Set<string>();
  const out: SchemaViolation[] = [];
  for (const e of errors) {
    // oneOf/if failures repeat what their branches already said.
    if (e.keyword === 'oneOf' || e.keyword === 'if' || e.keyword === 'anyOf') continue;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties') {
      const key = (e.params as { additionalProperty: string }).additionalProperty;
      const properties = (e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
      message = `has unknown key "${key}"${suggestion(key, properties ? Object.keys(properties) : [])}`;
    } else if (e.keyword === 'enum') {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
      const words = allowed.filter((v): v is string => typeof v === 'string');
      message = `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}${typeof e.data === 'string' ? suggestion(e.data, words) : ''}`;
    } else if (e.keyword === 'const' && typeof e.data === 'string') {
      const wanted = (e.params as { allowedValue: unknown }).allowedValue;
      if (typeof wanted === 'string') message = `${message}${suggestion(e.data, [wanted])}`;
    }
    const key = `${e.instancePath}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field: e.instancePath, message });
  }
  return out;
}

/** "; did you mean \"x\"?" when a known word is close to what was written, else "". */
function suggestion(typed: string, known: readonly string[]): string {
  const [best] = closest(typed, known);
  return best === undefined || best === typed ? '' : `; did you mean "${best}"?`;
}

export function formatViolations(errors: readonly SchemaViolation[]): string[] {
  return errors.map((e) => `${e.field || '(root)'} ${e.message}`);
}
