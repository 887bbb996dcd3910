/**
 * The one YAML style of every generated file: 2-space indent, no line folding, block literals
 * for multi-line strings, no anchors, LF, final newline. A string whose lines end in spaces is
 * double-quoted instead (a block literal would leave trailing spaces in the file).
 */
import { Document, isScalar, visit } from 'yaml';
import { type SchemaName, schemaId } from '../../schemas/validate.js';

const TRAILING_SPACE = /[ \t]\n|[ \t]$/;

export function yamlText(value: unknown): string {
  const doc = new Document(value, { aliasDuplicateObjects: false });
  visit(doc, {
    Scalar(_, node) {
      if (
        isScalar(node) &&
        typeof node.value === 'string' &&
        node.value.includes('\n') &&
        TRAILING_SPACE.test(node.value)
      ) {
        node.type = 'QUOTE_DOUBLE';
      }
    },
  });
  return doc.toString({
    indent: 2,
    indentSeq: true,
    lineWidth: 0,
    minContentWidth: 0,
    blockQuote: 'literal',
  });
}

/** The first line of every generated YAML file: editors complete and check against our schema. */
export function schemaLine(name: SchemaName): string {
  return `# yaml-language-server: $schema=${schemaId(name)}\n`;
}
