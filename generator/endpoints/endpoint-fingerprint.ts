import { createHash } from 'node:crypto';
import { canonicalJson, canonicalSha256 } from '../../core/canonical-json.js';
import type { Endpoint } from '../../schemas/types.js';

/**
 * 16 hex chars of sha256 over the endpoint's canonical JSON (sorted keys), referenced defs
 * included (the diff-only `contract` left out): a re-import compares it to tell "the definition changed" from "unchanged".
 * Defs are shared by many endpoints of one document (GitHub's reach hundreds of KB each), so
 * each def object is hashed once and endpoints hash the defs' digests.
 */
export function endpointFingerprint(endpoint: Endpoint): string {
  // The contract (what only the diff reads) is left out: tools do not change with it.
  const { defs, contract: _contract, ...rest } = endpoint;
  const hash = createHash('sha256').update(canonicalJson(rest));
  if (defs) {
    for (const name of Object.keys(defs).sort()) {
      hash.update(`\n${JSON.stringify(name)}:`);
      hash.update(canonicalSha256(defs[name]));
    }
  }
  return hash.digest('hex').slice(0, 16);
}
