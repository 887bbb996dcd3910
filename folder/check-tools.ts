/**
 * The checks that make "valid" mean "works": what `svc validate` accepts and what the runtime
 * serves pass through this one function, so the two can never disagree. Schema-valid tool
 * files can still describe a tool no call can succeed with: an input or output schema Ajv
 * cannot compile (an unknown type, a dangling $ref), a `required` name no property declares,
 * a `{var}` in the endpoint path that no path location fills. Those are errors. A stale tool
 * (its endpoint is gone from the source) is never served, enabled or not: a warning.
 *
 * Compiling a schema costs milliseconds (Ajv generates code), too slow for booting a folder of a
 * thousand tools, so the default check is the cheap part: the meta-schema (unknown types,
 * malformed keywords), `$ref`s that must resolve inside the schema (a remote one is refused by
 * both), and `pattern`s that must be regular expressions (matched in linear time: see
 * linear-pattern.ts; one the linear engine cannot run is skipped, with a warning).
 * `svc validate` also compiles every schema ({ compile: true }) with the runtime's options; the
 * runtime compiles a tool's schemas on its first call (compileToolSchema, cached per schema).
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isPlainObject } from '../core/is-plain-object.js';
import { metaSchemaValidator as precompiledMeta } from '../schemas/compiled/meta-schema-validator.js';
import { SvcError } from '../core/svc-error.js';
import { definedOnly } from './error-place.js';
import { linearPattern, linearRegExp } from './linear-pattern.js';
import type { FolderFiles, FolderModel, ToolItem } from './model.js';
import { ghostRequired } from './required-names.js';
import { isServed } from './served.js';
import { lineOfPointer, parseYaml } from './yaml-file.js';
import type { SchemaCheckCache } from './schema-check-cache.js';

export interface ToolCheckResult {
  errors: SvcError[];
  warnings: SvcError[];
}

export type CompiledSchema = ValidateFunction | { error: string; field?: string };

const MAX_SCHEMA_PROBLEMS = 5;
/** The generated function, typed as what it is: an Ajv validate function. */
const metaSchemaValidator = precompiledMeta as unknown as ValidateFunction;
let ajv: Ajv2020 | undefined;
let metaAjv: Ajv2020 | undefined;
let checkAjv: Ajv2020 | undefined;
const compiled = new WeakMap<object, CompiledSchema>();

/**
 * The Ajv that compiles tool schemas; `extra.code` adds code options (`svc worker build` asks
 * for standalone source with the same options, so a Worker validates exactly as Node does).
 */
export function createToolAjv(extra: { code?: Record<string, unknown> } = {}): Ajv2020 {
  // strict: false keeps OpenAPI leftovers (example, x-…) harmless; the meta-schema still refuses
  // unknown types and malformed keywords. addUsedSchema: false: a $id repeated across tools is fine.
  // validateSchema: false: compileToolSchema has checked the meta-schema already (metaProblem);
  // compiling a second copy of the meta-schema here would cost as much again on the first call.
  const created = new Ajv2020({
    allErrors: true,
    strict: false,
    validateFormats: true,
    validateSchema: false,
    addUsedSchema: false,
    logger: false,
    // Patterns come from API descriptions: matched in linear time, never by backtracking.
    code: { regExp: linearRegExp, ...extra.code },
  });
  (addFormatsModule as unknown as (a: Ajv2020) => void)(created);
  return created;
}

function sharedAjv(): Ajv2020 {
  ajv ??= createToolAjv();
  return ajv;
}

function describeMetaError(e: ErrorObject, schema: object): string {
  const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues;
  const found = valueAt(schema, e.instancePath);
  const value = found === undefined || typeof found === 'object' ? '' : ` (is ${JSON.stringify(found)})`;
  return allowed ? `must be one of ${allowed.join(', ')}${value}` : `${e.message ?? 'is invalid'}${value}`;
}

/**
 * Compiles a tool's JSON Schema (input or output), once per schema object. A schema the
 * meta-schema refuses reports the first offending field (a JSON pointer inside the schema).
 */
export function compileToolSchema(schema: object): CompiledSchema {
  const cached = compiled.get(schema);
  if (cached) return cached;
  const a = sharedAjv();
  let result: CompiledSchema;
  const meta = metaProblem(schema);
  if (meta) result = { error: `${meta.field || '(root)'} ${meta.error}`, field: meta.field };
  else {
    try {
      result = a.compile(schema);
    } catch (error) {
      result = { error: (error as Error).message, field: '' };
    } finally {
      // The WeakMap above is the cache: Ajv's own would keep every reloaded config alive.
      a.removeSchema(schema);
    }
  }
  compiled.set(schema, result);
  return result;
}

function metaProblem(schema: object): { error: string; field: string } | undefined {
  let errors: ErrorObject[] | null | undefined;
  if ((schema as { $schema?: unknown }).$schema === undefined) {
    // The 2020-12 meta-schema, precompiled (schemas/compiled/): compiling it cost ~30 ms of each command.
    if (metaSchemaValidator(schema)) return undefined;
    errors = metaSchemaValidator.errors;
  } else {
    // A schema that names its `$schema`: Ajv picks (or refuses) the meta-schema. Formats off:
    // checking every $ref as a URI reference made this 5x slower, and patterns are checked as
    // regular expressions below, with the flag Ajv compiles them with. The same options as the
    // precompiled one (schemas/compiled/generate-validators.mjs createMetaAjv).
    metaAjv ??= new Ajv2020({ allErrors: true, strict: false, validateFormats: false, logger: false });
    if (metaAjv.validateSchema(schema)) return undefined;
    errors = metaAjv.errors;
  }
  // The anyOf wrappers only repeat the specific error beneath them.
  const specific = (errors ?? []).filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
  const first = specific[0] ?? errors?.[0];
  return {
    error: first ? describeMetaError(first, schema) : 'is not a valid JSON Schema',
    field: first?.instancePath ?? '',
  };
}

/** The value at a JSON pointer ("" is the root), or undefined. */
function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isPlainObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}

function resolvePointer(root: unknown, ref: string): boolean {
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return false;
  }
  return valueAt(root, pointer) !== undefined;
}

/**
 * Local `$ref`s that point nowhere, `$ref`s that leave the schema (nothing remote is ever fetched)
 * and `pattern`s that are not regular expressions, as [pointer, message]. Patterns the linear-time
 * engine cannot run go to `unchecked`: they are skipped when arguments are validated.
 */
function brokenRefsAndPatterns(root: object, unchecked: [string, string][] = []): [string, string][] {
  const out: [string, string][] = [];
  const anchors = new Set<string>();
  const ids = new Set<string>();
  const refs: [string, string][] = [];
  const walk = (node: unknown, pointer: string, depth: number) => {
    if (depth > 128 || out.length >= MAX_SCHEMA_PROBLEMS) return;
    if (Array.isArray(node)) {
      for (const [i, v] of node.entries()) walk(v, `${pointer}/${i}`, depth + 1);
      return;
    }
    if (!isPlainObject(node)) return;
    if (typeof node.$anchor === 'string') anchors.add(node.$anchor);
    if (typeof node.$id === 'string') ids.add(node.$id.split('#')[0]!);
    if (typeof node.$ref === 'string') refs.push([`${pointer}/$ref`, node.$ref]);
    const patterns: [string, unknown][] = [[`${pointer}/pattern`, node.pattern]];
    if (isPlainObject(node.patternProperties))
      for (const key of Object.keys(node.patternProperties))
        patterns.push([`${pointer}/patternProperties`, key]);
    for (const [where, pattern] of patterns) {
      if (typeof pattern !== 'string') continue;
      try {
        new RegExp(pattern, 'u');
      } catch {
        out.push([where, `pattern ${JSON.stringify(pattern)} is not a valid regular expression`]);
        continue;
      }
      const linear = linearPattern(pattern);
      if ('unsupported' in linear)
        unchecked.push([
          where,
          `pattern ${JSON.stringify(pattern)} uses ${linear.unsupported}, which svc does not run (only linear-time patterns are checked); arguments are not checked against it and the upstream API decides`,
        ]);
    }
    for (const [k, v] of Object.entries(node))
      if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples' && k !== 'example')
        walk(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1);
  };
  walk(root, '', 0);
  for (const [where, ref] of refs) {
    if (!ref.startsWith('#')) {
      // A reference to another document: the runtime never fetches one, so it can never resolve,
      // unless it names a `$id` declared inside this very schema.
      if (!ids.has(ref.split('#')[0]!))
        out.push([
          where,
          `$ref ${JSON.stringify(ref)} points outside this schema; remote references are never fetched (inline the definition under $defs and use "#/$defs/…")`,
        ]);
      continue;
    }
    const ok = ref === '#' || ref.startsWith('#/') ? resolvePointer(root, ref) : anchors.has(ref.slice(1));
    if (!ok) out.push([where, `$ref ${JSON.stringify(ref)} points to nothing in this schema`]);
  }
  return out;
}

/** What checking one schema found: problems (errors when the tool is served) and notices. */
interface SchemaFinding {
  kind: 'problem' | 'notice';
  message: string;
  field: string;
}

/**
 * Checks one input or output schema. Pure: the same schema (by content) gives the same
 * findings, so checkTools checks each distinct schema once (GitHub's 1,108 tools have 930).
 */
function schemaFindings(
  which: 'inputSchema' | 'outputSchema',
  schema: object,
  compile: boolean,
): SchemaFinding[] {
  const out: SchemaFinding[] = [];
  const problem = (message: string, field: string) => out.push({ kind: 'problem', message, field });
  const meta = metaProblem(schema);
  if (meta) {
    problem(
      `the ${which} is not a valid JSON Schema: ${meta.field || '(root)'} ${meta.error}`,
      `/${which}${meta.field}`,
    );
    return out;
  }
  const unchecked: [string, string][] = [];
  const broken = brokenRefsAndPatterns(schema, unchecked);
  for (const [field, message] of unchecked.slice(0, MAX_SCHEMA_PROBLEMS))
    out.push({ kind: 'notice', message: `the ${which}: ${message}`, field: `/${which}${field}` });
  for (const [field, message] of broken)
    problem(`the ${which} cannot be compiled: ${message}`, `/${which}${field}`);
  if (broken.length > 0) return out;
  if (compile) {
    const error = compileError(schema);
    if (error) {
      problem(`the ${which} cannot be compiled: ${error.error}`, `/${which}${error.field ?? ''}`);
      return out;
    }
  }
  const ghosts: [string, string][] = [];
  ghostRequired(schema, `/${which}`, ghosts);
  for (const [field, name] of ghosts.slice(0, MAX_SCHEMA_PROBLEMS)) {
    problem(`"${name}" is required but no property of that name is declared`, field);
  }
  return out;
}

/** Thrown by the check's code.process hook: the whole schema's code was generated without error. */
const GENERATED = new Error('the schema was compiled to source');
/** The schema compileError is checking without parsing its code (undefined: parse it too). */
let unparsed: object | undefined;
/**
 * Nesting (objects and arrays) up to which the generated code is not parsed. Deeper, a stack
 * overflow decides, and where it strikes varies with the stack: the whole compile is run.
 */
const MAX_UNPARSED_DEPTH = 64;

function deeperThan(node: unknown, limit: number): boolean {
  if (typeof node !== 'object' || node === null) return false;
  if (limit === 0) return true;
  for (const v of Array.isArray(node) ? node : Object.values(node)) if (deeperThan(v, limit - 1)) return true;
  return false;
}

/**
 * Whether Ajv compiles a schema whose meta-schema check passed, for `svc validate`: the same
 * options as the runtime's compiler but no optimization pass (it removes unused names from the
 * generated code and cannot make a compile fail; skipping it makes compiling ~40% cheaper), and
 * the generated source of the schema itself is not handed to `new Function` (~15% of the rest):
 * Ajv throws every error it knows of while generating code (a $ref it cannot resolve or that loops,
 * `nullable` without `type`, a keyword of the wrong type), and the code of each $ref compiled
 * apart is still parsed. What only the parse could refuse is code deeper than a parser
 * accepts, so a schema nested deeper than MAX_UNPARSED_DEPTH is compiled whole; `{ parse: true }`
 * always does (test/compile-check-equivalence.test.ts shows both verdicts are the same).
 * The function is thrown away: the runtime compiles its own, optimized, on a tool's first call.
 */
export function compileError(
  schema: object,
  options: { parse?: boolean } = {},
): { error: string; field?: string } | undefined {
  checkAjv ??= createToolAjv({
    code: {
      optimize: false,
      process: (source: string, env?: { schema?: unknown }) => {
        if (unparsed !== undefined && env?.schema === unparsed) throw GENERATED;
        return source;
      },
    },
  });
  unparsed = options.parse || deeperThan(schema, MAX_UNPARSED_DEPTH) ? undefined : schema;
  try {
    checkAjv.compile(schema);
    return undefined;
  } catch (error) {
    if (error === GENERATED) return undefined;
    return { error: (error as Error).message, field: '' };
  } finally {
    unparsed = undefined;
    checkAjv.removeSchema(schema);
  }
}

function checkPathTemplate(item: ToolItem, problem: (message: string, field: string) => void): void {
  const { tool } = item;
  const pathNames = new Map<string, string>();
  for (const [prop, loc] of Object.entries(tool.locations))
    if (loc?.in === 'path') pathNames.set(loc.name, prop);
  const declared = isPlainObject(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
  for (const m of tool.endpoint.path.matchAll(/\{([^}]*)\}/g)) {
    const name = m[1] ?? '';
    const prop = pathNames.get(name);
    if (prop === undefined) {
      problem(
        `the path ${tool.endpoint.path} has {${name}} but no locations entry with in: path and name: ${name} fills it`,
        '/endpoint/path',
      );
    } else if (!Object.hasOwn(declared, prop)) {
      problem(
        `the path parameter {${name}} comes from argument "${prop}", which the inputSchema does not declare`,
        `/locations/${prop.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      );
    }
  }
}

export interface CheckToolsOptions {
  /** The folder's files: lets each problem name its line. */
  files?: FolderFiles;
  /** Also compile every schema with Ajv (svc validate); the runtime compiles on first call instead. */
  compile?: boolean;
  /**
   * Check only the tools the runtime serves (what gates a served config): a tool that is not
   * served can only warn, so the errors are the same and the others' checks are skipped.
   */
  servedOnly?: boolean;
  /**
   * Schemas found clean before, by content (schema-check-cache.ts): one it holds is not checked
   * again, and with `compile` each schema found clean is added. A schema with a problem is never
   * held, so its problem is found and reported every time.
   */
  cleanSchemas?: Pick<SchemaCheckCache, 'has' | 'add'>;
}

/** Checks every tool of a loaded folder: errors for the tools it serves, warnings for the others. */
export function checkTools(folder: FolderModel, options: CheckToolsOptions = {}): ToolCheckResult {
  const { files, compile = false, servedOnly = false, cleanSchemas } = options;
  const errors: SvcError[] = [];
  const warnings: SvcError[] = [];
  const parsed = new Map<string, ReturnType<typeof parseYaml>>();
  // Tools of one API repeat schemas (an empty input, a shared output): each content is checked once.
  const findings = new Map<string, SchemaFinding[]>();
  const findingsOf = (which: 'inputSchema' | 'outputSchema', schema: object) => {
    const json = JSON.stringify(schema);
    const key = `${which}\u0000${json}`;
    let found = findings.get(key);
    if (!found) {
      if (cleanSchemas?.has(json)) found = [];
      else {
        found = schemaFindings(which, schema, compile);
        if (compile && found.length === 0) cleanSchemas?.add(json);
      }
      findings.set(key, found);
    }
    return found;
  };
  const lineOf = (file: string, field: string): number | undefined => {
    const text = files?.[file];
    if (text === undefined) return undefined;
    if (!parsed.has(file)) parsed.set(file, parseYaml(text));
    const doc = parsed.get(file);
    return doc?.ok ? lineOfPointer(doc.parsed, field) : undefined;
  };
  for (const item of folder.tools) {
    // A tool that is not served cannot fail a call: its problems wait, as warnings, until someone
    // enables it (an imported document's own slip must not stop the whole folder from serving).
    const served = isServed(item);
    if (servedOnly && !served) continue;
    const problem = (message: string, field: string) => {
      const place = definedOnly({ file: item.file, field, line: lineOf(item.file, field) });
      if (served)
        errors.push(new SvcError('FOLDER_INVALID', `tool ${item.tool.name}: ${message}`, { place }));
      else
        warnings.push(
          new SvcError(
            'FOLDER_INVALID',
            `tool ${item.tool.name} (not served): ${message}; fix it before enabling the tool`,
            { place },
          ),
        );
    };
    const notice = (message: string, field: string) => {
      const place = definedOnly({ file: item.file, field, line: lineOf(item.file, field) });
      warnings.push(new SvcError('FOLDER_INVALID', `tool ${item.tool.name}: ${message}`, { place }));
    };
    for (const which of ['inputSchema', 'outputSchema'] as const) {
      const schema = item.tool[which];
      if (!schema) continue;
      for (const f of findingsOf(which, schema))
        (f.kind === 'problem' ? problem : notice)(f.message, f.field);
    }
    checkPathTemplate(item, problem);
    if (item.tool.stale === true) {
      const { method, path } = item.tool.endpoint;
      warnings.push(
        new SvcError(
          'FOLDER_INVALID',
          `tool ${item.tool.name} is stale: its endpoint ${method} ${path} is gone from the source, so it is not served${item.tool.enabled ? ' even though it is enabled' : ''}`,
          { place: definedOnly({ file: item.file, field: '/stale', line: lineOf(item.file, '/stale') }) },
        ),
      );
    }
  }
  return { errors, warnings };
}
