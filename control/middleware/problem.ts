/** The control API's error body: `{ error: { code, message } }` with an HTTP status. */
import type { Context } from 'hono';

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 500;

export function problem(c: Context, status: ErrorStatus, code: string, message: string) {
  return c.json({ error: { code, message } }, status);
}
