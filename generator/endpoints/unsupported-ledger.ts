/**
 * OpenAPI features the generator knowingly does not carry over, each with the reason. A test
 * (unsupported-ledger.test.ts) imports a document using each feature and checks the ledger
 * still tells the truth, so it goes stale loudly.
 */
export interface LedgerEntry {
  id: string;
  feature: string;
  what_happens: string;
  reason: string;
}

export const UNSUPPORTED_LEDGER: readonly LedgerEntry[] = [
  {
    id: 'trace-method',
    feature: 'TRACE operations',
    what_happens: 'skipped: no endpoint, no tool',
    reason: 'the endpoint model and the tool schema know GET/POST/PUT/PATCH/DELETE/HEAD/OPTIONS only',
  },
  {
    id: 'webhooks',
    feature: 'OpenAPI 3.1 `webhooks`',
    what_happens: 'ignored',
    reason: 'webhooks are calls the API makes to us, not operations a tool can call',
  },
  {
    id: 'callbacks-links',
    feature: 'operation `callbacks` and response `links`',
    what_happens: 'no tool; only the diff reads them (endpoint contract)',
    reason: 'neither is a request a tool sends',
  },
  {
    id: 'operation-servers',
    feature: 'path-level and operation-level `servers`',
    what_happens: 'ignored; every tool uses the one API base URL of config.yaml',
    reason:
      'one base URL per server keeps origins fixed (tool arguments can never change the upstream origin)',
  },
  {
    id: 'swagger-tsv',
    feature: 'Swagger 2.0 `collectionFormat: tsv`',
    what_happens: 'treated like csv (style form/simple, explode false)',
    reason: 'OpenAPI 3 has no tab-delimited style',
  },
  {
    id: 'multiple-body-media-types',
    feature: 'several request body media types',
    what_happens:
      'one is chosen: JSON (or +json), form-urlencoded, multipart, text/plain, octet-stream, else the first',
    reason: 'a tool has one body encoding',
  },
  {
    id: 'other-body-media-types',
    feature: 'request bodies only in other media types (XML, CSV, …)',
    what_happens: 'the tool sends the body property as text/plain (text/* types) or application/octet-stream',
    reason: 'the tool file records one of the five encodings the runtime implements',
  },
  {
    id: 'ref-siblings',
    feature: 'keywords beside a schema `$ref`',
    what_happens:
      'dropped, except a description (kept in every version); beside a parameter, request body or response $ref, its summary and description replace the target’s',
    reason:
      'OpenAPI 3.0 and Swagger 2.0 ignore them by definition; constraints beside a $ref would restate or contradict the shared shape, while a description says what this use of it means',
  },
  {
    id: 'schema-noise',
    feature:
      '`example`, `examples`, `xml`, `externalDocs`, `discriminator`, `title` and `x-*` inside schemas',
    what_happens: 'dropped from tool schemas',
    reason: 'they do not constrain input and cost bytes in tools/list',
  },
  {
    id: 'deep-defs',
    feature: 'input schemas reaching more than 256 KB of component schemas',
    what_happens:
      'a tool carries every $def its input reaches up to that limit; beyond it, references become open schemas with the type kept, and the import warns naming the tool',
    reason:
      'a safety limit against pathological documents (no request of Stripe, GitHub or Kubernetes comes near it); MCP tools cannot share definitions in tools/list',
  },
  {
    id: 'encoding-allow-reserved-headers',
    feature: 'Encoding Object `allowReserved` and `headers` (form and multipart bodies)',
    what_happens: 'ignored: reserved characters are always percent-encoded; parts carry no extra headers',
    reason: 'strict encoding is always understood by the server; per-part headers are rare and not modelled',
  },
  {
    id: 'nullable-without-type',
    feature: 'OpenAPI 3.0 `nullable: true` on a schema without `type`',
    what_happens: 'nullable ignored',
    reason: 'there is no type list to add "null" to; composition keywords already decide',
  },
];
