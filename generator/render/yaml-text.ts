/**
 * The one YAML style of every generated file, written by hand for speed (the GitHub API's
 * 1,223 tools are 3 MB of YAML) and for a fixed format: 2-space indent, sequences indented under
 * their key, no line folding, no anchors, LF, final newline. Multi-line strings in maps become
 * block literals (`|` or `|-`) when that is exact and leaves no trailing spaces; any other
 * string that is not safely plain is double-quoted. The fast reader in folder/yaml-fast.ts reads
 * exactly this style; tests check both against the `yaml` package.
 */
import { doubleQuoted, isSafePlain } from '../../folder/yaml-scalars.js';
import { type SchemaName, schemaId } from '../../schemas/validate.js';

export function yamlText(value: unknown): string {
  if (!isMap(value)) throw new TypeError('a YAML file of svc holds a mapping');
  const out: string[] = [];
  writeMap(value, 0, out);
  return out.length === 0 ? '{}\n' : out.join('');
}

/** The first line of every generated YAML file: editors complete and check against our schema. */
export function schemaLine(name: SchemaName): string {
  return `# yaml-language-server: $schema=${schemaId(name)}\n`;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// A colon inside a plain key is legal YAML but easy to misread; quoting it keeps keys simple.
function key(k: string): string {
  return isSafePlain(k) && !k.includes(':') ? k : doubleQuoted(k);
}

function scalar(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return '.nan';
    if (!Number.isFinite(v)) return v > 0 ? '.inf' : '-.inf';
    return Object.is(v, -0) ? '0' : String(v);
  }
  if (typeof v === 'string') return isSafePlain(v) ? v : doubleQuoted(v);
  if (typeof v === 'bigint') return v.toString();
  throw new TypeError(`cannot write a ${typeof v} in YAML`);
}

// A literal block is exact when no line ends in a space or tab, no character needs escaping,
// the string ends in one newline (`|`) or in a non-empty line (`|-`), and it has text.
const LITERAL_SAFE = /^[\t\x20-\x7E\u00A0-\uD7FF\uE000-\uFFFD\n]*$/;
function literal(s: string): { header: string; lines: string[] } | undefined {
  if (!s.includes('\n') || !LITERAL_SAFE.test(s) || /\u2028|\u2029|\uFEFF/.test(s)) return undefined;
  if (/[ \t]\n|[ \t]$/.test(s)) return undefined;
  const clip = s.endsWith('\n');
  const body = clip ? s.slice(0, -1) : s;
  if (body.endsWith('\n') || body === '') return undefined;
  const lines = body.split('\n');
  const first = lines.find((l) => l !== '') ?? '';
  if (first === '') return undefined;
  // A first line starting with a space needs the indentation spelled out.
  const indicator = first.startsWith(' ') || first.startsWith('\t') ? '2' : '';
  return { header: `|${indicator}${clip ? '' : '-'}`, lines };
}

function writeMap(map: Record<string, unknown>, indent: number, out: string[]): void {
  const pad = ' '.repeat(indent);
  for (const k of Object.keys(map)) {
    const v = map[k];
    if (v === undefined) continue;
    const head = `${pad}${key(k)}:`;
    if (Array.isArray(v)) {
      if (v.length === 0) out.push(`${head} []\n`);
      else {
        out.push(`${head}\n`);
        writeSeq(v, indent + 2, out);
      }
    } else if (isMap(v)) {
      if (Object.keys(v).every((x) => v[x] === undefined)) out.push(`${head} {}\n`);
      else {
        out.push(`${head}\n`);
        writeMap(v, indent + 2, out);
      }
    } else if (typeof v === 'string' && literal(v)) {
      const lit = literal(v)!;
      const inner = ' '.repeat(indent + 2);
      out.push(`${head} ${lit.header}\n`);
      for (const line of lit.lines) out.push(line === '' ? '\n' : `${inner}${line}\n`);
    } else {
      out.push(`${head} ${scalar(v)}\n`);
    }
  }
}

function writeSeq(seq: readonly unknown[], indent: number, out: string[]): void {
  const pad = ' '.repeat(indent);
  for (const item of seq) {
    const v = item === undefined ? null : item;
    if ((Array.isArray(v) && v.length > 0) || (isMap(v) && Object.keys(v).some((x) => v[x] !== undefined))) {
      // The nested collection is written two columns in, and its first line takes the "- ".
      const nested: string[] = [];
      if (Array.isArray(v)) writeSeq(v, indent + 2, nested);
      else writeMap(v as Record<string, unknown>, indent + 2, nested);
      nested[0] = `${pad}- ${(nested[0] ?? '').slice(indent + 2)}`;
      out.push(...nested);
    } else if (Array.isArray(v)) {
      out.push(`${pad}- []\n`);
    } else if (isMap(v)) {
      out.push(`${pad}- {}\n`);
    } else {
      out.push(`${pad}- ${scalar(v)}\n`);
    }
  }
}
