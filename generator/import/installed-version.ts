/**
 * svc's version and, when built, its code (the build id of dist/), which the unchanged fingerprint
 * names: read once per process by the shell (the planner stays pure); none where it cannot be
 * known (a bundle without its package.json).
 */
import { buildId, packageVersion } from '../../core/package-root.js';

let version: { svcVersion?: string } | undefined;

export function installedVersion(): { svcVersion?: string } {
  if (version) return version;
  try {
    const found = packageVersion();
    const code = buildId();
    version = found === 'unknown' ? {} : { svcVersion: code ? `${found}+${code}` : found };
  } catch {
    version = {};
  }
  return version;
}
