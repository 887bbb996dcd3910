import { appendFileSync } from 'node:fs';

let out;

export function initialize(data) {
  out = data.out;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (out) appendFileSync(out, `${resolved.url}\n`);
  return resolved;
}
