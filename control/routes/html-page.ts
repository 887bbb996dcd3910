/** An HTML page answer: rendered with a fresh CSP nonce, never cached. */
import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { contentSecurityPolicy } from '../middleware/security-headers.js';
import type { PageContext } from '../status-page.js';

export function htmlPage(
  c: Context,
  render: (ctx: PageContext) => string,
  csrf: string | undefined,
  status: 200 | 401 | 403 = 200,
) {
  const nonce = randomBytes(16).toString('base64');
  c.header('Content-Security-Policy', contentSecurityPolicy(nonce));
  c.header('Cache-Control', 'no-store');
  return c.html(render({ nonce, ...(csrf ? { csrf } : {}) }), status);
}
