// Generates schemas/types.ts from schemas/*.schema.json so that types cannot drift
// from the contract. `--check` exits 1 when the checked-in file is stale (run by tests).
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'schemas');
const out = path.join(dir, 'types.ts');

export async function generateSchemaTypes() {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.schema.json')).sort();
  const parts = [
    '// Generated from schemas/*.schema.json by `npm run schemas:types`. Do not edit by hand.',
    '/* eslint-disable */',
    '',
  ];
  for (const name of names) {
    const schema = JSON.parse(await readFile(path.join(dir, name), 'utf8'));
    const ts = await compile(schema, schema.title, {
      cwd: dir,
      bannerComment: '',
      additionalProperties: false,
      declareExternallyReferenced: name !== 'export.schema.json',
      format: true,
      strictIndexSignatures: false,
      unknownAny: true,
    });
    parts.push(`// ${name}`, ts.trim(), '');
  }
  let text = parts.join('\n');
  if (names.includes('export.schema.json')) text = text.replace(/server: SvcConfig1;/, 'server: SvcConfig;');
  return text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = await generateSchemaTypes();
  if (process.argv.includes('--check')) {
    const current = await readFile(out, 'utf8').catch(() => '');
    if (current !== text) {
      console.error('schemas/types.ts is stale: run `npm run schemas:types`');
      process.exit(1);
    }
  } else {
    await writeFile(out, text);
  }
}
