import type { SvcTool } from '../../schemas/types.js';

/**
 * Every hint written out: some hosts refuse a tool without an explicit destructiveHint.
 * PATCH counts as destructive because it overwrites stored values; POST creates or acts
 * and is not assumed to destroy anything. Every upstream API is an open world.
 */
export function annotationsFor(method: string): SvcTool['annotations'] {
  switch (method.toUpperCase()) {
    case 'GET':
    case 'HEAD':
    case 'OPTIONS':
      return { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
    case 'DELETE':
    case 'PUT':
      return { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true };
    case 'PATCH':
      return { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
    default:
      return { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
  }
}
