/**
 * Refusals: the answers given before MCP is reached (a refused origin, a body too large, a
 * server shutting down, an unknown server id). They carry no CORS headers, as they never have;
 * the cors middleware tells them from answers by this mark.
 */
import { jsonRpcError } from '../legacy-sessions.js';

const refusals = new WeakSet<Response>();

export function refusal(status: number, code: number, message: string, headers?: HeadersInit): Response {
  const response = jsonRpcError(status, code, message, headers);
  refusals.add(response);
  return response;
}

export function isRefusal(response: Response): boolean {
  return refusals.has(response);
}

/** Counts a refusal by its reason (the metrics' rejected series; nothing without metrics). */
export type RejectCounter = (reason: string) => void;
