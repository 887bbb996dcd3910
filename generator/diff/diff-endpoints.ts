import * as crypto from 'node:crypto';
import type { ApiChange, Endpoint, EndpointChange } from '../../schemas/types.js';
import { diffDiscriminators } from './discriminator-diff.js';
import { endpointGroup, endpointLabel, endpointMatchKey } from './endpoint-key.js';
import { type ChangeLevel, type KeywordScope, RULES, type RuleId } from './rules.js';
import { type Defs, deepEqual, LayeredDefs, type SchemaFinding, SchemaDiffer } from './schema-diff.js';
import { METHOD_ORDER } from '../endpoints/index.js';

const DAY_MS = 86_400_000;

/** How a folder tunes the diff (config.yaml `diff:`), and the clock sunsets are read against. */
export interface DiffOptions {
  /** A level per rule id, or 'off' to drop the rule's findings. */
  levels?: Readonly<Record<string, ChangeLevel | 'off'>>;
  /** Days after an announced sunset before a removal counts as expected (default 0). */
  sunsetGraceDays?: number;
  /** Today, for sunsets; defaults to the system clock. */
  now?: Date;
}

/** x-stability-level values whose endpoints promise nothing yet: their changes never break. */
const UNSTABLE = new Set(['draft', 'alpha']);
const STABILITY_ORDER = ['draft', 'alpha', 'beta', 'stable'];

type Contract = NonNullable<Endpoint['contract']>;

/** sha256 in hex; one-shot where Node has it (20.12+): a report of 3,000 changes hashes 3,000 short texts. */
const sha256: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

function fingerprint(id: RuleId, key: string, location: string): string {
  return sha256(`${id}\u0000${key}\u0000${location}`).slice(0, 12);
}

export class Changes {
  readonly list: ApiChange[] = [];
  constructor(
    private readonly key: string,
    private readonly options: DiffOptions,
    /** An endpoint that promised no stability (draft, alpha): nothing about it breaks. */
    private readonly unstable?: string,
  ) {}
  add(id: RuleId, text: string, location = ''): void {
    const tuned = this.options.levels?.[id];
    if (tuned === 'off') return;
    let level = tuned ?? RULES[id].level;
    let said = text;
    if (this.unstable && level === 'breaking') {
      level = 'info';
      said = `${text} (${this.unstable} endpoint: not breaking)`;
    }
    const change: ApiChange = { id, level, text: said, fingerprint: fingerprint(id, this.key, location) };
    if (location) change.location = location;
    this.list.push(change);
  }
}

function quote(s: string): string {
  return `\`${s}\``;
}

function paramsByKey(endpoint: Endpoint): Map<string, Endpoint['parameters'][number]> {
  return new Map(endpoint.parameters.map((p) => [`${p.in}:${p.name}`, p]));
}

const layered = new WeakMap<Endpoint, Defs>();

/** The endpoint's defs with the contract's own (schemas only error responses or headers use) over them. */
export function allDefs(e: Endpoint): Defs {
  const extra = e.contract?.defs;
  if (!extra) return e.defs;
  if (!e.defs) return extra;
  let defs = layered.get(e);
  if (!defs) {
    defs = new LayeredDefs(extra, e.defs);
    layered.set(e, defs);
  }
  return defs;
}

/** Milliseconds of an ISO date (or date-time); undefined when it is not one. */
function dateMs(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * What removing something (an endpoint, a parameter) means given its announced lifecycle:
 * after its sunset (plus the grace) it was expected; deprecated without a date, a warning;
 * otherwise breaking.
 */
function removal(
  deprecated: boolean,
  sunset: string | undefined,
  options: DiffOptions,
): { kind: 'after-sunset' | 'deprecated' | 'breaking'; note: string } {
  const at = dateMs(sunset);
  if (at !== undefined) {
    const now = (options.now ?? new Date()).getTime();
    const grace = (options.sunsetGraceDays ?? 0) * DAY_MS;
    if (now >= at + grace) return { kind: 'after-sunset', note: ` after its sunset ${sunset}` };
    return { kind: 'breaking', note: ` before its sunset ${sunset}` };
  }
  if (deprecated) return { kind: 'deprecated', note: ' (deprecated, no sunset date)' };
  return { kind: 'breaking', note: '' };
}

// ---------------------------------------------------------------- schema findings → rules

interface Mapped {
  id: RuleId;
  text: string;
}

/** The rule a schema finding triggers in a scope, with a sentence; undefined when it means nothing there. */
function mapFinding(scope: KeywordScope, f: SchemaFinding, where: string): Mapped | undefined {
  const request = scope !== 'response-property';
  switch (f.kind) {
    case 'type-changed':
      if (scope === 'request-parameter')
        return {
          id: f.relation === 'wider' ? 'request-parameter-type-widened' : 'request-parameter-type-changed',
          text: `${where} type ${f.detail}`,
        };
      if (scope === 'request-property')
        return {
          id: f.relation === 'wider' ? 'request-body-type-widened' : 'request-body-type-changed',
          text: `${where} type ${f.detail}`,
        };
      return {
        id: f.relation === 'narrower' ? 'response-type-narrowed' : 'response-type-changed',
        text: `${where} type ${f.detail}`,
      };
    case 'property-added':
      if (scope === 'request-parameter') return undefined;
      if (request)
        return f.required
          ? { id: 'request-property-added-required', text: `new required ${where}` }
          : { id: 'request-property-added-optional', text: `new optional ${where}` };
      return { id: 'response-property-added', text: `new ${where}` };
    case 'property-removed':
      if (scope === 'request-parameter') return undefined;
      return {
        id: request ? 'request-property-removed' : 'response-property-removed',
        text: `${where} removed`,
      };
    case 'became-required':
      if (scope === 'request-parameter') return undefined;
      return request
        ? { id: 'request-property-became-required', text: `${where} became required` }
        : { id: 'response-property-became-required', text: `${where} is now always present` };
    case 'became-optional':
      if (scope === 'request-parameter') return undefined;
      return request
        ? { id: 'request-property-became-optional', text: `${where} became optional` }
        : { id: 'response-property-became-optional', text: `${where} is no longer always present` };
    case 'enum-value-removed':
      return {
        id: `${scope}-enum-value-removed`,
        text: request ? `${where} no longer accepts ${f.detail}` : `${where} no longer holds ${f.detail}`,
      };
    case 'enum-value-added':
      return {
        id: `${scope}-enum-value-added`,
        text: request ? `${where} accepts ${f.detail}` : `${where} may hold ${f.detail}`,
      };
    case 'constraint':
      return { id: `${scope}-${f.keyword!}-${f.direction!}`, text: `${where}: ${f.detail}` };
    case 'default-changed':
      return { id: `${scope}-default-changed`, text: `${where}: ${f.detail}` };
    case 'deprecated':
      return { id: `${scope}-deprecated`, text: `${where} deprecated` };
    case 'became-read-only':
      return request && scope === 'request-property'
        ? { id: 'request-property-became-read-only', text: `${where} became readOnly` }
        : undefined;
    case 'became-write-only':
      return request
        ? undefined
        : { id: 'response-property-became-write-only', text: `${where} became writeOnly` };
    case 'alternative-added':
      return {
        id: `${scope}-one-of-added`,
        text: request
          ? `${where} accepts a new shape ${f.detail}`
          : `${where} may take a new shape ${f.detail}`,
      };
    case 'alternative-removed':
      return {
        id: `${scope}-one-of-removed`,
        text: request
          ? `${where} no longer accepts shape ${f.detail}`
          : `${where} no longer takes shape ${f.detail}`,
      };
  }
}

function propertyWhere(prefix: string, path: string): string {
  if (!path) return prefix;
  // The main body keeps the wording reports have always used ("request property `x`").
  return `${prefix === 'request body' ? 'request' : prefix} property ${quote(path)}`;
}

// ---------------------------------------------------------------- parameters

function diffParameters(
  before: Endpoint,
  after: Endpoint,
  out: Changes,
  differ: SchemaDiffer,
  options: DiffOptions,
): void {
  const b = paramsByKey(before);
  const a = paramsByKey(after);
  const pathRenamed = before.path !== after.path;
  const keys = [...new Set([...b.keys(), ...a.keys()])].sort();
  const bDefs = allDefs(before);
  const aDefs = allDefs(after);
  for (const key of keys) {
    const pb = b.get(key);
    const pa = a.get(key);
    // A renamed path parameter is reported once, as a rename of the path, not as remove + add.
    if (pathRenamed && (pb?.in === 'path' || pa?.in === 'path') && !(pb && pa)) continue;
    const label = `${(pa ?? pb)!.in} parameter ${quote((pa ?? pb)!.name)}`;
    if (!pb && pa) {
      if (pa.required) out.add('request-parameter-added-required', `new required ${label}`, key);
      else out.add('request-parameter-added-optional', `new optional ${label}`, key);
      continue;
    }
    if (pb && !pa) {
      const fate = removal(pb.deprecated === true, before.contract?.parameterSunsets?.[key], options);
      const id =
        fate.kind === 'after-sunset'
          ? 'request-parameter-removed-after-sunset'
          : fate.kind === 'deprecated'
            ? 'request-parameter-removed-deprecated'
            : 'request-parameter-removed';
      out.add(id, `${label} removed${fate.note}`, key);
      continue;
    }
    if (!pb || !pa) continue;
    if (!pb.required && pa.required)
      out.add('request-parameter-became-required', `${label} became required`, key);
    if (pb.required && !pa.required)
      out.add('request-parameter-became-optional', `${label} became optional`, key);
    if (!pb.deprecated && pa.deprecated) out.add('request-parameter-deprecated', `${label} deprecated`, key);
    for (const f of differ.diff(pb.schema, bDefs, pa.schema, aDefs, 'request')) {
      const where = f.path ? `${label} (${f.path})` : label;
      const loc = f.path ? `${key}/${f.path}` : key;
      const m = mapFinding('request-parameter', f, where);
      if (!m) continue;
      const valued = f.kind === 'enum-value-added' || f.kind === 'enum-value-removed';
      out.add(m.id, m.text, valued ? `${loc}=${f.detail}` : keyed(loc, f));
    }
  }
}

/** Locations of keyword findings name the keyword, so two at one place keep distinct fingerprints. */
function keyed(loc: string, f: SchemaFinding): string {
  if (f.kind === 'constraint') return `${loc}#${f.keyword}`;
  if (f.kind === 'default-changed' || f.kind === 'deprecated') return `${loc}#${f.kind}`;
  if (f.kind === 'alternative-added' || f.kind === 'alternative-removed') return `${loc}#${f.detail}`;
  return loc;
}

// ---------------------------------------------------------------- request body

function requestFindings(findings: SchemaFinding[], out: Changes, base: string, label: string): void {
  for (const f of findings) {
    const loc = `${base}/${f.path}`;
    const m = mapFinding('request-property', f, propertyWhere(label, f.path));
    if (!m) continue;
    const valued = f.kind === 'enum-value-added' || f.kind === 'enum-value-removed';
    out.add(m.id, m.text, valued ? `${loc}=${f.detail}` : keyed(loc, f));
  }
}

function diffRequestBody(before: Endpoint, after: Endpoint, out: Changes, differ: SchemaDiffer): void {
  const b = before.requestBody;
  const a = after.requestBody;
  if (!b && !a) return;
  if (!b && a) {
    if (a.required) out.add('request-body-added-required', `now requires a ${a.contentType} body`, 'body');
    else out.add('request-body-added-optional', `now accepts an optional ${a.contentType} body`, 'body');
    return;
  }
  if (b && !a) {
    out.add('request-body-removed', 'no longer takes a request body', 'body');
    return;
  }
  if (!b || !a) return;
  if (!b.required && a.required)
    out.add('request-body-became-required', 'request body became required', 'body');
  if (b.required && !a.required)
    out.add('request-body-became-optional', 'request body became optional', 'body');
  const mb = before.contract?.requestMedia;
  const ma = after.contract?.requestMedia;
  if (!mb || !ma) {
    // An endpoint stored by an older svc knows one media type: compare what both sides know.
    if (b.contentType !== a.contentType)
      out.add(
        'request-body-content-type-changed',
        `request body ${b.contentType} → ${a.contentType}`,
        'body',
      );
    requestFindings(
      differ.diff(b.schema, before.defs, a.schema, after.defs, 'request'),
      out,
      'body',
      'request body',
    );
    return;
  }
  const bDefs = allDefs(before);
  const aDefs = allDefs(after);
  const primaryGone = !Object.hasOwn(ma, b.contentType);
  if (primaryGone) {
    out.add('request-body-content-type-changed', `request body ${b.contentType} → ${a.contentType}`, 'body');
    requestFindings(
      differ.diff(mb[b.contentType] ?? b.schema, bDefs, ma[a.contentType] ?? a.schema, aDefs, 'request'),
      out,
      'body',
      'request body',
    );
  }
  for (const type of Object.keys(mb).sort()) {
    if (type === b.contentType && primaryGone) continue;
    if (!Object.hasOwn(ma, type))
      out.add(
        'request-body-media-type-removed',
        `request body no longer accepted as ${type}`,
        `body[${type}]`,
      );
  }
  for (const type of Object.keys(ma).sort()) {
    if (primaryGone && type === a.contentType) continue;
    if (!Object.hasOwn(mb, type))
      out.add('request-body-media-type-added', `request body also accepted as ${type}`, `body[${type}]`);
  }
  const primary = b.contentType;
  for (const type of Object.keys(mb).sort()) {
    if (!Object.hasOwn(ma, type)) continue;
    const isPrimary = type === primary;
    // The same schema under another media type says nothing new.
    if (!isPrimary && sameSchema(mb[type], mb[primary]) && sameSchema(ma[type], ma[primary])) continue;
    requestFindings(
      differ.diff(mb[type], bDefs, ma[type], aDefs, 'request'),
      out,
      isPrimary ? 'body' : `body[${type}]`,
      isPrimary ? 'request body' : `request body (${type})`,
    );
  }
}

function sameSchema(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  const rx = (x as { $ref?: unknown } | undefined)?.$ref;
  const ry = (y as { $ref?: unknown } | undefined)?.$ref;
  if (typeof rx === 'string' || typeof ry === 'string')
    return rx === ry && Object.keys(x as object).length === 1;
  return deepEqual(x, y);
}

// ---------------------------------------------------------------- responses

function responseFindings(findings: SchemaFinding[], out: Changes, base: string, label: string): void {
  for (const f of findings) {
    const loc = `${base}/${f.path}`;
    const m = mapFinding('response-property', f, propertyWhere(label, f.path));
    if (!m) continue;
    const valued = f.kind === 'enum-value-added' || f.kind === 'enum-value-removed';
    out.add(m.id, m.text, valued ? `${loc}=${f.detail}` : keyed(loc, f));
  }
}

/** Findings reported through one pair of rules: the first when a success response would break. */
export function aggregated(
  findings: SchemaFinding[],
  out: Changes,
  base: string,
  label: string,
  loosened: RuleId,
  changed: RuleId,
): void {
  for (const f of findings) {
    const m = mapFinding('response-property', f, propertyWhere(label, f.path));
    if (!m) continue;
    const breaks = RULES[m.id].level === 'breaking';
    out.add(breaks ? loosened : changed, m.text, `${keyed(`${base}/${f.path}`, f)}@${m.id}`);
  }
}

const isSuccess = (status: string) => /^2/.test(status);

function diffResponses(before: Endpoint, after: Endpoint, out: Changes, differ: SchemaDiffer): void {
  const b = before.response;
  const a = after.response;
  if (b && a && b.status !== a.status) {
    out.add('response-success-status-changed', `success status ${b.status} → ${a.status}`, 'response');
  }
  const rb = before.contract?.responses;
  const ra = after.contract?.responses;
  if (!rb || !ra) {
    legacyResponse(before, after, out, differ);
    return;
  }
  const bDefs = allDefs(before);
  const aDefs = allDefs(after);
  const norm = (s: string | undefined) =>
    s === undefined ? undefined : s === 'default' ? s : s.toUpperCase();
  const primaryB = norm(b?.status);
  const primaryA = norm(a?.status);
  const pairs: [string, string][] = [];
  const pairedB = new Set<string>();
  const pairedA = new Set<string>();
  if (primaryB && primaryA && rb[primaryB] && ra[primaryA]) {
    pairs.push([primaryB, primaryA]);
    pairedB.add(primaryB);
    pairedA.add(primaryA);
  }
  for (const status of Object.keys(rb).sort()) {
    if (pairedB.has(status) || pairedA.has(status) || !ra[status]) continue;
    pairs.push([status, status]);
    pairedB.add(status);
    pairedA.add(status);
  }
  for (const status of Object.keys(rb).sort()) {
    if (pairedB.has(status)) continue;
    if (isSuccess(status))
      out.add(
        'response-success-status-removed',
        `success status ${status} no longer returned`,
        `response/${status}`,
      );
    else
      out.add('response-error-status-removed', `status ${status} no longer documented`, `response/${status}`);
  }
  for (const status of Object.keys(ra).sort()) {
    if (pairedA.has(status)) continue;
    if (isSuccess(status))
      out.add('response-success-status-added', `new success status ${status}`, `response/${status}`);
    else out.add('response-error-status-added', `new status ${status}`, `response/${status}`);
  }
  for (const [sb, sa] of pairs) {
    const x = rb[sb]!;
    const y = ra[sa]!;
    const primary = sb === primaryB;
    const success = isSuccess(sb) || primary;
    const base = primary ? 'response' : `response/${sa}`;
    const label = primary ? 'response' : `${sa} response`;
    diffMedia(x.media ?? {}, y.media ?? {}, primary ? b?.contentType : undefined, {
      out,
      differ,
      bDefs,
      aDefs,
      base,
      label,
      success,
    });
    diffHeaders(x.headers ?? {}, y.headers ?? {}, out, differ, bDefs, aDefs, base, label);
    const lb = new Set(x.links ?? []);
    const la = new Set(y.links ?? []);
    for (const l of [...lb].sort())
      if (!la.has(l))
        out.add('response-link-removed', `${label} link ${quote(l)} removed`, `${base}/link/${l}`);
    for (const l of [...la].sort())
      if (!lb.has(l))
        out.add('response-link-added', `${label} has a new link ${quote(l)}`, `${base}/link/${l}`);
  }
}

interface MediaContext {
  out: Changes;
  differ: SchemaDiffer;
  bDefs: Defs;
  aDefs: Defs;
  base: string;
  label: string;
  success: boolean;
}

function diffMedia(
  mb: Record<string, unknown>,
  ma: Record<string, unknown>,
  primaryType: string | undefined,
  c: MediaContext,
): void {
  const { out, differ, base, label } = c;
  const typesB = Object.keys(mb).sort();
  const typesA = Object.keys(ma).sort();
  if (c.success && typesB.length > 0 && typesA.length === 0) {
    out.add('response-body-removed', `the ${label} no longer has a body`, base);
    return;
  }
  if (c.success && typesB.length === 0 && typesA.length > 0) {
    out.add('response-body-added', `the ${label} now has a body`, base);
    return;
  }
  const compare = (x: unknown, y: unknown, where: string, what: string) => {
    const findings = differ.diff(x, c.bDefs, y, c.aDefs, 'response');
    if (c.success) responseFindings(findings, out, where, what);
    else
      aggregated(
        findings,
        out,
        where,
        what,
        'response-error-schema-loosened',
        'response-error-schema-changed',
      );
  };
  const primary = primaryType !== undefined && Object.hasOwn(mb, primaryType) ? primaryType : typesB[0];
  const newPrimary = typesA.find((t) => t === primary) ?? typesA.find((t) => t.includes('json')) ?? typesA[0];
  const primaryGone = primary !== undefined && !Object.hasOwn(ma, primary);
  if (primaryGone && newPrimary !== undefined) {
    if (c.success) out.add('response-content-type-changed', `${label} ${primary} → ${newPrimary}`, base);
    else out.add('response-error-schema-changed', `${label} ${primary} → ${newPrimary}`, `${base}#media`);
    compare(mb[primary], ma[newPrimary], base, label);
  }
  for (const type of typesB) {
    if (Object.hasOwn(ma, type) || (primaryGone && type === primary)) continue;
    if (c.success)
      out.add('response-media-type-removed', `${label} no longer comes as ${type}`, `${base}[${type}]`);
    else out.add('response-error-schema-changed', `${label} no longer comes as ${type}`, `${base}[${type}]`);
  }
  for (const type of typesA) {
    if (Object.hasOwn(mb, type) || (primaryGone && type === newPrimary)) continue;
    if (c.success) out.add('response-media-type-added', `${label} may come as ${type}`, `${base}[${type}]`);
    else out.add('response-error-schema-changed', `${label} may come as ${type}`, `${base}[${type}]`);
  }
  for (const type of typesB) {
    if (!Object.hasOwn(ma, type)) continue;
    const isPrimary = type === primary;
    if (!isPrimary && primary && sameSchema(mb[type], mb[primary]) && sameSchema(ma[type], ma[primary]))
      continue;
    compare(
      mb[type],
      ma[type],
      isPrimary ? base : `${base}[${type}]`,
      isPrimary ? label : `${label} (${type})`,
    );
  }
}

function diffHeaders(
  hb: NonNullable<NonNullable<Contract['responses']>[string]['headers']>,
  ha: NonNullable<NonNullable<Contract['responses']>[string]['headers']>,
  out: Changes,
  differ: SchemaDiffer,
  bDefs: Defs,
  aDefs: Defs,
  base: string,
  label: string,
): void {
  for (const name of [...new Set([...Object.keys(hb), ...Object.keys(ha)])].sort()) {
    const x = hb[name];
    const y = ha[name];
    const where = `${label} header ${quote(name)}`;
    const loc = `${base}/header/${name}`;
    if (x && !y) {
      out.add(
        x.required ? 'response-header-removed' : 'response-optional-header-removed',
        `${where} removed`,
        loc,
      );
      continue;
    }
    if (!x && y) {
      out.add('response-header-added', `new ${where}`, loc);
      continue;
    }
    if (!x || !y) continue;
    if (x.required && !y.required)
      out.add('response-header-became-optional', `${where} is no longer always sent`, loc);
    if (!x.required && y.required)
      out.add('response-header-became-required', `${where} is now always sent`, loc);
    aggregated(
      differ.diff(x.schema, bDefs, y.schema, aDefs, 'response'),
      out,
      loc,
      where,
      'response-header-schema-loosened',
      'response-header-schema-changed',
    );
  }
}

/** Endpoints stored by an older svc know only the success response's main media type. */
function legacyResponse(before: Endpoint, after: Endpoint, out: Changes, differ: SchemaDiffer): void {
  const b = before.response;
  const a = after.response;
  if (b?.contentType && a?.contentType && b.contentType !== a.contentType) {
    out.add(
      'response-content-type-changed',
      `success response ${b.contentType} → ${a.contentType}`,
      'response',
    );
  }
  const bs = b?.schema;
  const as = a?.schema;
  if (bs === undefined && as === undefined) return;
  if (bs === undefined) {
    out.add('response-body-added', 'the success response now has a body schema', 'response');
    return;
  }
  if (as === undefined) {
    out.add('response-body-removed', 'the success response no longer has a body schema', 'response');
    return;
  }
  responseFindings(differ.diff(bs, before.defs, as, after.defs, 'response'), out, 'response', 'response');
}

// ---------------------------------------------------------------- callbacks

function diffCallbacks(before: Endpoint, after: Endpoint, out: Changes, differ: SchemaDiffer): void {
  if (!before.contract || !after.contract) return;
  const cb = before.contract.callbacks ?? {};
  const ca = after.contract.callbacks ?? {};
  const bDefs = allDefs(before);
  const aDefs = allDefs(after);
  for (const name of [...new Set([...Object.keys(cb), ...Object.keys(ca)])].sort()) {
    const x = cb[name];
    const y = ca[name];
    if (x && !y) {
      out.add('callback-removed', `callback ${quote(name)} removed`, `callback/${name}`);
      continue;
    }
    if (!x && y) {
      out.add('callback-added', `new callback ${quote(name)}`, `callback/${name}`);
      continue;
    }
    if (!x || !y) continue;
    for (const op of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
      const loc = `callback/${name}/${op}`;
      if (!Object.hasOwn(y, op)) out.add('callback-removed', `callback ${quote(name)} ${op} removed`, loc);
      else if (!Object.hasOwn(x, op)) out.add('callback-added', `new callback ${quote(name)} ${op}`, loc);
      else
        aggregated(
          differ.diff(x[op], bDefs, y[op], aDefs, 'response'),
          out,
          loc,
          `callback ${quote(name)} ${op} payload`,
          'callback-payload-loosened',
          'callback-payload-changed',
        );
    }
  }
}

// ---------------------------------------------------------------- security

type Requirement = Record<string, string[]>;

function requirements(e: Endpoint, scoped: boolean): Requirement[] {
  if (scoped && e.contract?.securityScopes) return e.contract.securityScopes;
  return e.security.map((names) => Object.fromEntries(names.map((n) => [n, [] as string[]])));
}

function schemesLabel(r: Requirement): string {
  return Object.keys(r).sort().join(' + ') || '(none)';
}

/**
 * A caller authorized one way keeps working when some new alternative asks for no more schemes
 * and no more scopes; otherwise that way was removed (or needs new scopes).
 */
function diffSecurity(before: Endpoint, after: Endpoint, out: Changes): void {
  // Scopes the operation's oauth2/openIdConnect requirements name (Endpoint.scopes): a user_oauth
  // server asks each person for them once an enabled tool calls the endpoint.
  const had = new Set(before.scopes ?? []);
  const wider = (after.scopes ?? []).filter((s) => !had.has(s));
  if (wider.length > 0)
    out.add('security-scopes-widened', `now needs OAuth scope ${wider.join(', ')}`, 'security/scopes');
  const scoped = before.contract !== undefined && after.contract !== undefined;
  const b = requirements(before, scoped);
  const a = requirements(after, scoped);
  const open = (list: Requirement[]) => list.length === 0 || list.some((r) => Object.keys(r).length === 0);
  if (open(b) && !open(a)) {
    out.add(
      'security-added',
      `now requires ${[...new Set(a.map(schemesLabel))].sort().join(' or ')}`,
      'security',
    );
    return;
  }
  if (!open(b) && open(a)) {
    out.add('security-removed', 'no longer requires authorization', 'security');
    return;
  }
  if (open(b)) return;
  const within = (inner: Requirement, outer: Requirement) =>
    Object.keys(inner).every((k) => Object.hasOwn(outer, k) && inner[k]!.every((s) => outer[k]!.includes(s)));
  const sameSchemes = (x: Requirement, y: Requirement) => schemesLabel(x) === schemesLabel(y);
  const sortedB = [...b].sort((x, y) => (schemesLabel(x) < schemesLabel(y) ? -1 : 1));
  const sortedA = [...a].sort((x, y) => (schemesLabel(x) < schemesLabel(y) ? -1 : 1));
  for (const x of sortedB) {
    if (a.some((y) => within(y, x))) continue;
    const label = schemesLabel(x);
    const twin = a.find((y) => sameSchemes(x, y));
    if (twin) {
      const more = Object.keys(twin).flatMap((k) =>
        twin[k]!.filter((s) => !x[k]!.includes(s)).map((s) => `${k}:${s}`),
      );
      out.add(
        'security-scopes-added',
        `${label} now needs scope ${more.join(', ')}`,
        `security/${label}#scopes`,
      );
    } else out.add('security-alternative-removed', `${label} no longer accepted`, `security/${label}`);
  }
  for (const y of sortedA) {
    const label = schemesLabel(y);
    const twin = b.find((x) => sameSchemes(x, y));
    if (!twin) {
      out.add('security-alternative-added', `${label} now accepted`, `security/${label}`);
      continue;
    }
    const fewer = Object.keys(twin).flatMap((k) =>
      twin[k]!.filter((s) => !y[k]!.includes(s)).map((s) => `${k}:${s}`),
    );
    if (fewer.length > 0 && within(y, twin))
      out.add(
        'security-scopes-removed',
        `${label} no longer needs scope ${fewer.join(', ')}`,
        `security/${label}#fewer`,
      );
  }
}

// ---------------------------------------------------------------- lifecycle

function diffLifecycle(before: Endpoint, after: Endpoint, out: Changes): void {
  if (!before.deprecated && after.deprecated) out.add('endpoint-deprecated', 'deprecated', 'deprecated');
  if (before.deprecated && !after.deprecated)
    out.add('endpoint-undeprecated', 'no longer deprecated', 'deprecated');
  if (!before.contract || !after.contract) return;
  const sb = before.contract.sunset;
  const sa = after.contract.sunset;
  if (sb !== sa) out.add('endpoint-sunset-changed', `sunset ${sb ?? '(none)'} → ${sa ?? '(none)'}`, 'sunset');
  const lb = STABILITY_ORDER.indexOf(before.contract.stability ?? 'stable');
  const la = STABILITY_ORDER.indexOf(after.contract.stability ?? 'stable');
  if (lb >= 0 && la >= 0 && lb !== la) {
    const text = `stability ${STABILITY_ORDER[lb]} → ${STABILITY_ORDER[la]}`;
    out.add(la < lb ? 'endpoint-stability-decreased' : 'endpoint-stability-changed', text, 'stability');
  }
}

function unstableLevel(e: Endpoint): string | undefined {
  const level = e.contract?.stability;
  return level && UNSTABLE.has(level) ? level : undefined;
}

/** The changes between two versions of one endpoint (empty when nothing a caller can see changed). */
export function diffEndpoint(
  before: Endpoint,
  after: Endpoint,
  differ = new SchemaDiffer(),
  options: DiffOptions = {},
): ApiChange[] {
  const out = new Changes(endpointMatchKey(after.method, after.path), options, unstableLevel(before));
  if (before.path !== after.path) {
    const sameShape =
      endpointMatchKey(before.method, before.path) === endpointMatchKey(after.method, after.path);
    out.add(
      sameShape ? 'endpoint-path-parameter-renamed' : 'endpoint-path-changed',
      `path ${before.path} → ${after.path}`,
      'path',
    );
  }
  if ((before.operationId ?? '') !== (after.operationId ?? '')) {
    out.add(
      'endpoint-operation-id-changed',
      `operationId ${before.operationId ?? '(none)'} → ${after.operationId ?? '(none)'}`,
      'operationId',
    );
  }
  diffLifecycle(before, after, out);
  if (
    (before.summary ?? '') !== (after.summary ?? '') ||
    (before.description ?? '') !== (after.description ?? '')
  ) {
    out.add('endpoint-summary-changed', 'summary or description changed', 'summary');
  }
  diffParameters(before, after, out, differ, options);
  diffRequestBody(before, after, out, differ);
  diffResponses(before, after, out, differ);
  diffCallbacks(before, after, out, differ);
  if (before.contract?.discriminators || after.contract?.discriminators)
    for (const c of diffDiscriminators(before, after, allDefs(before) ?? {}, allDefs(after) ?? {}))
      out.add(c.id, c.text, c.location);
  diffSecurity(before, after, out);
  return out.list;
}

function compareEndpoints(
  a: Pick<Endpoint, 'method' | 'path'>,
  b: Pick<Endpoint, 'method' | 'path'>,
): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return methodRank(a.method) - methodRank(b.method);
}

function entry(endpoint: Endpoint, kind: EndpointChange['kind'], changes: ApiChange[]): EndpointChange {
  const change: EndpointChange = {
    key: endpointLabel(endpoint),
    method: endpoint.method,
    path: endpoint.path,
    group: endpointGroup(endpoint),
    kind,
    breaking: changes.some((c) => c.level === 'breaking'),
    changes,
  };
  if (endpoint.operationId) change.operationId = endpoint.operationId;
  return change;
}

/**
 * Per-endpoint diff of two imports: every endpoint added, removed or changed, sorted by path
 * then method, each with its classified changes. Endpoints match by method and path shape.
 * `same`: whether a pair is known equal without comparing it (an import that hashed its
 * endpoints passes, for a stored hash it has too, its very endpoint as the previous one), so that
 * only the endpoints that changed are compared.
 */
export function diffEndpoints(
  before: Endpoint[],
  after: Endpoint[],
  options: DiffOptions = {},
  same?: (before: Endpoint, after: Endpoint) => boolean,
): EndpointChange[] {
  const old = new Map(before.map((e) => [endpointMatchKey(e.method, e.path), e]));
  const seen = new Set<string>();
  const differ = new SchemaDiffer();
  const result: { endpoint: Endpoint; change: EndpointChange }[] = [];
  const fresh: Endpoint[] = [];
  for (const endpoint of after) {
    const key = endpointMatchKey(endpoint.method, endpoint.path);
    const previous = old.get(key);
    if (!previous) {
      fresh.push(endpoint);
      continue;
    }
    seen.add(key);
    if (same?.(previous, endpoint)) continue;
    const changes = diffEndpoint(previous, endpoint, differ, options);
    if (changes.length > 0) result.push({ endpoint, change: entry(endpoint, 'changed', changes) });
  }
  // A path renamed upstream keeps its method and operationId: report it as one changed
  // endpoint (as the merge keeps its tool), when the pairing is unambiguous.
  const gone = [...old].filter(([key]) => !seen.has(key)).map(([, e]) => e);
  const goneByOp = uniqueByOperation(gone);
  const freshByOp = uniqueByOperation(fresh);
  for (const endpoint of fresh) {
    const op = operationKey(endpoint);
    const previous = op ? goneByOp.get(op) : undefined;
    if (op && previous && freshByOp.get(op) === endpoint) {
      seen.add(endpointMatchKey(previous.method, previous.path));
      result.push({
        endpoint,
        change: entry(endpoint, 'changed', diffEndpoint(previous, endpoint, differ, options)),
      });
      continue;
    }
    const c = new Changes(endpointMatchKey(endpoint.method, endpoint.path), options);
    c.add('endpoint-added', 'endpoint added');
    result.push({ endpoint, change: entry(endpoint, 'added', c.list) });
  }
  for (const [key, endpoint] of old) {
    if (seen.has(key)) continue;
    const c = new Changes(key, options, unstableLevel(endpoint));
    const fate = removal(endpoint.deprecated, endpoint.contract?.sunset, options);
    const id =
      fate.kind === 'after-sunset'
        ? 'endpoint-removed-after-sunset'
        : fate.kind === 'deprecated'
          ? 'endpoint-removed-deprecated'
          : 'endpoint-removed';
    c.add(id, `endpoint removed${fate.note}`);
    result.push({ endpoint, change: entry(endpoint, 'removed', c.list) });
  }
  result.sort((x, y) => compareEndpoints(x.endpoint, y.endpoint));
  return result.map((r) => r.change);
}

function operationKey(endpoint: Endpoint): string | undefined {
  return endpoint.operationId ? `${endpoint.method} ${endpoint.operationId}` : undefined;
}

function uniqueByOperation(list: readonly Endpoint[]): Map<string, Endpoint> {
  const out = new Map<string, Endpoint>();
  const dup = new Set<string>();
  for (const e of list) {
    const key = operationKey(e);
    if (!key || dup.has(key)) continue;
    if (out.has(key)) {
      out.delete(key);
      dup.add(key);
    } else out.set(key, e);
  }
  return out;
}

/** A method's place in the endpoints' own order (-1, first, for a method outside it, as before). */
function methodRank(method: string): number {
  return (METHOD_ORDER as readonly string[]).indexOf(method);
}
