/**
 * The validators of a Workers bundle: for every schema the served config would compile (each
 * served tool's input schema, and its output schema unless config.yaml turns them off), the
 * code Ajv generates for it, as an ES module. The Ajv is the Node runtime's own (createToolAjv:
 * same options, formats and linear-time pattern engine), so a Worker accepts and refuses
 * exactly what Node does, with the same error messages, and never generates code at run time.
 * A schema Ajv cannot compile is kept as its error, as the Node runtime reports it on a call.
 */
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { compileToolSchema, createToolAjv } from '../../folder/check-tools.js';
import type { FolderModel } from '../../folder/model.js';
import { compileConfig } from '../../runtime/loaded-config.js';

// A CommonJS module whose module.exports is the function (what Node's default import gives).
const standaloneCode = standaloneModule as unknown as (ajv: Ajv2020, validate: ValidateFunction) => string;

export interface ToolValidators {
  /** Module code, one per distinct schema, by index. */
  modules: string[];
  /** Tool file → which schema → module index, or the compile error. */
  table: Record<string, { input?: number | { error: string }; output?: number | { error: string } }>;
}

/**
 * Generates the validators of every schema the served config of `folder` uses. `linearPattern`
 * is the import specifier of folder/linear-pattern (the generated code calls its linearRegExp).
 */
export function generateToolValidators(folder: FolderModel, linearPattern: string): ToolValidators {
  const ajv = createToolAjv({ code: { source: true, esm: true } });
  const modules: string[] = [];
  /** Schema text → its module, or Ajv's error for it. */
  const bySchema = new Map<string, number | { compileError: string }>();
  const table: ToolValidators['table'] = {};
  const generate = (schema: object, file: string, which: 'input' | 'output') => {
    const key = JSON.stringify(schema);
    let entry = bySchema.get(key);
    if (entry === undefined) {
      const checked = compileToolSchema(schema);
      if ('error' in checked) entry = { compileError: checked.error };
      else {
        try {
          const code = standaloneCode(ajv, ajv.compile(schema));
          const head = code.includes('linearRegExp')
            ? `import { linearRegExp } from ${JSON.stringify(linearPattern)};\n`
            : '';
          entry = modules.push(head + code) - 1;
        } finally {
          ajv.removeSchema(schema);
        }
      }
      bySchema.set(key, entry);
    }
    table[file] ??= {};
    const row = table[file];
    // Worded as runtime/loaded-config.ts words it when Node compiles the schema on a call.
    row[which] =
      typeof entry === 'number'
        ? entry
        : { error: `the ${which} schema of ${file} cannot be compiled: ${entry.compileError}` };
    return { error: 'recorded' };
  };
  // The served config's own walk: exactly the tools and schemas the runtime would compile.
  const config = compileConfig(folder, 1, generate);
  for (const tool of config.discovery.catalog.values()) {
    tool.validator();
    tool.outputValidator();
  }
  return { modules, table };
}
