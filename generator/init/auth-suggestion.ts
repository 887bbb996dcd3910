/**
 * The auth mode a document's security schemes call for, so that `svc init` can warn when a
 * folder gets `auth: none` for an API that declares a credential (every call would then fail
 * with 401, far from the cause). Pure: reads the parsed document only.
 */
import type { SpecVersion } from '../parse/index.js';

export interface AuthSuggestion {
  /** The scheme the suggestion follows (the first one the document's security uses). */
  scheme: string;
  /** What the document says it is, e.g. "http basic", "apiKey in header X-Api-Key". */
  kind: string;
  /** `svc init` flags that match it. */
  flags: string[];
}

export interface DeclaredSchemes {
  /** Every declared scheme, in the order a suggestion prefers them. */
  schemes: { name: string; kind: string; flags?: string[] }[];
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function describeScheme(scheme: Record<string, unknown>): { kind: string; flags?: string[] } {
  const type = String(scheme.type ?? '');
  if (type === 'http' || type === 'basic') {
    const httpScheme = type === 'basic' ? 'basic' : String(scheme.scheme ?? '').toLowerCase();
    if (httpScheme === 'basic') return { kind: 'http basic', flags: ['--auth', 'basic'] };
    if (httpScheme === 'bearer') return { kind: 'http bearer', flags: ['--auth', 'bearer'] };
    return { kind: `http ${httpScheme || '(no scheme)'}` };
  }
  if (type === 'apiKey') {
    const where = String(scheme.in ?? '');
    const name = String(scheme.name ?? '');
    const kind = `apiKey in ${where} ${name}`.trim();
    if ((where === 'header' || where === 'query') && name)
      return { kind, flags: ['--auth', 'api_key', '--api-key-in', where, '--api-key-name', name] };
    return { kind };
  }
  if (type === 'oauth2' || type === 'openIdConnect') return { kind: type, flags: ['--auth', 'user_oauth'] };
  return { kind: type || 'unknown' };
}

/** The document's security schemes, those its security requirements name first. */
export function declaredSchemes(document: Record<string, unknown>, version: SpecVersion): DeclaredSchemes {
  const holder =
    version === 'swagger-2.0'
      ? record(document.securityDefinitions)
      : record(record(document.components)?.securitySchemes);
  if (!holder) return { schemes: [] };
  const used: string[] = [];
  const requirements = [document.security];
  for (const item of Object.values(record(document.paths) ?? {})) {
    for (const op of Object.values(record(item) ?? {})) requirements.push(record(op)?.security);
  }
  for (const list of requirements) {
    if (!Array.isArray(list)) continue;
    for (const requirement of list) {
      for (const name of Object.keys(record(requirement) ?? {})) if (!used.includes(name)) used.push(name);
    }
  }
  const names = [
    ...used.filter((n) => Object.hasOwn(holder, n)),
    ...Object.keys(holder)
      .filter((n) => !used.includes(n))
      .sort(),
  ];
  return {
    schemes: names.flatMap((name) => {
      const scheme = record(holder[name]);
      return scheme ? [{ name, ...describeScheme(scheme) }] : [];
    }),
  };
}

/** The first declared scheme a folder mode can serve; undefined when the document declares none. */
export function suggestAuth(declared: DeclaredSchemes): AuthSuggestion | undefined {
  const first = declared.schemes.find((s) => s.flags !== undefined) ?? declared.schemes[0];
  if (!first) return undefined;
  return { scheme: first.name, kind: first.kind, flags: first.flags ?? [] };
}

/** The warning `svc init` prints when the folder gets `auth: none` for such a document. */
export function authWarning(declared: DeclaredSchemes): string | undefined {
  const suggestion = suggestAuth(declared);
  if (!suggestion) return undefined;
  const list = declared.schemes.map((s) => `${s.name} (${s.kind})`).join(', ');
  const advice =
    suggestion.flags.length > 0
      ? `; to send a credential, create the folder with \`${suggestion.flags.join(' ')}\` (or set auth in config.yaml)`
      : '; svc has no auth mode for it: calls go out without a credential';
  return `the document declares security schemes (${list}) but this folder has auth: none${advice}`;
}
