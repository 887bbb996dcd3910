import type { SvcErrorCode } from './svc-error.js';

/**
 * Exit codes: 0 ok, 1 a check failed (diff --fail-on hit, validate found problems),
 * 2 usage error, 3 input error (source, spec, content, folder, including a folder that already
 * exists where `svc init` would create one), 4 write error (a file or a port), 5 internal.
 */
export const EXIT = { ok: 0, checkFailed: 1, usage: 2, input: 3, write: 4, internal: 5 } as const;

export function exitCodeFor(code: SvcErrorCode): number {
  switch (code) {
    case 'USAGE':
      return EXIT.usage;
    case 'WRITE_FAILED':
    case 'PORT_IN_USE':
      return EXIT.write;
    case 'INTERNAL':
      return EXIT.internal;
    default:
      return EXIT.input;
  }
}
