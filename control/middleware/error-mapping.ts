/**
 * What an exception or an unknown route becomes: an SvcError keeps its code (400 for usage and
 * folder problems, 500 otherwise); anything else is logged and answered as INTERNAL, so no
 * message of a library reaches the client.
 */
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { isSvcError } from '../../core/svc-error.js';
import { problem } from './problem.js';

export type ControlLog = (event: string, fields: Record<string, unknown>) => void;

export function controlErrors(log: ControlLog): ErrorHandler {
  return function controlError(error: Error, c: Context) {
    if (isSvcError(error)) {
      const status = error.code === 'USAGE' || error.code.startsWith('FOLDER') ? 400 : 500;
      return problem(c, status, error.code, error.message);
    }
    log('request_failed', { path: c.req.path, reason: error.message });
    return problem(c, 500, 'INTERNAL', 'internal error');
  };
}

export const noSuchRoute: NotFoundHandler = (c) => problem(c, 404, 'NOT_FOUND', 'no such route');
