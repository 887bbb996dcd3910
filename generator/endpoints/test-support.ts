/** Test helper: parse a fixture or an inline document into a ParsedDocument. */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ParsedDocument, parseDocument } from '../parse/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function parseFixture(name: string): Promise<ParsedDocument> {
  const origin = join(root, 'fixtures', 'specs', name);
  const text = await readFile(origin, 'utf8');
  return parseDocument({ text, origin, bytes: Buffer.byteLength(text) });
}

export function parseInline(document: Record<string, unknown>): Promise<ParsedDocument> {
  const text = JSON.stringify(document);
  return parseDocument({ text, origin: '/inline.json', bytes: text.length });
}
