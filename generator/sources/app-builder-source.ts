/**
 * The I/O edge for app-builder (Bubble) apps: the meta description (custom Live domain), each
 * branch's Swagger document, and the ownership-verification page. URLs come from
 * app-builder-urls.ts; this file only fetches and judges what came back.
 */
import { randomBytes } from 'node:crypto';
import { readWebStreamCapped } from '../../core/read-web-stream-capped.js';
import { SvcError } from '../../core/svc-error.js';
import { fetchFollowing, readOpenApiSource } from './openapi-source.js';
import {
  type AppBuilderPlace,
  customDomainFromMeta,
  metaUrlOf,
  verificationPageUrlOf,
} from './app-builder-urls.js';

/** Run-mode basic-auth credentials, read from the environment and never written anywhere. */
export const RUN_MODE_USER_ENV = 'SVC_RUN_MODE_USER';
export const RUN_MODE_PASSWORD_ENV = 'SVC_RUN_MODE_PASSWORD';

export interface RunModeCredentials {
  user: string;
  password: string;
}

/** What to do on the platform so that svc can import the app (spec 4.5.4). */
export const APP_BUILDER_SETUP_STEPS: readonly string[] = [
  'In the app editor, Settings → API: tick "Enable Data API" (and "Enable Workflow API and backend workflows" for workflows).',
  'In the same tab, tick "Expose Swagger file" (the Swagger schema is hidden by default), then deploy to Live for the live branch.',
  'Make each data type and workflow you want as a tool public, or accessible to authenticated users (Settings → API, and the privacy rules).',
];

/** The token of an ownership check: the slug of a page, lower-case letters and digits only. */
export function newVerificationToken(): string {
  return `svcverify${randomBytes(8).toString('hex')}`;
}

export interface CustomDomainResult {
  domain?: string;
  /** Why nothing was detected (meta unreachable, not JSON, no domain): for the user. */
  note?: string;
}

/**
 * Reads `/api/1.1/meta` (spec 4.5.4 step 1). Never fails: without a detected domain Live is
 * served from the platform origin, and the user can set `source.customDomain` by hand (spec 7).
 */
export async function detectCustomDomain(
  appId: string,
  platformOrigin?: string,
): Promise<CustomDomainResult> {
  const url = metaUrlOf(appId, platformOrigin);
  let text: string;
  try {
    text = (await readOpenApiSource(url, { cwd: '.', maxBytes: 5 * 1024 * 1024, timeoutMs: 15_000 })).text;
  } catch (error) {
    const reason = error instanceof SvcError ? error.message : String(error);
    return { note: `custom domain not detected (${reason})` };
  }
  let meta: unknown;
  try {
    meta = JSON.parse(text);
  } catch {
    return { note: `custom domain not detected (${url} is not JSON)` };
  }
  const domain = customDomainFromMeta(meta);
  return domain ? { domain } : { note: 'no custom domain: Live is served from the platform' };
}

export interface PageProbe {
  url: string;
  found: boolean;
  /** Why the page does not count, for the user. */
  reason?: string;
}

const PROBE_TIMEOUT_MS = 15_000;
const MAX_PAGE_BYTES = 2 * 1024 * 1024;

/**
 * Looks for the verification page of one branch. A platform may answer a missing page with its
 * own 404 page and status 200, or redirect it to the index page, so the page counts only when
 * the answer is 2xx, the final URL still ends with the token and the page shows the token.
 * Basic credentials go only to the page's own origin (fetchFollowing drops them on a redirect).
 */
export async function probeVerificationPage(
  place: AppBuilderPlace,
  token: string,
  credentials?: RunModeCredentials,
): Promise<PageProbe> {
  const url = verificationPageUrlOf(place, token);
  const headers: Record<string, string> = credentials
    ? {
        authorization: `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`,
      }
    : {};
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), PROBE_TIMEOUT_MS);
  try {
    const response = await fetchFollowing(new URL(url), headers, controller, PROBE_TIMEOUT_MS);
    const body = await readText(response);
    if (response.status === 401) {
      return {
        url,
        found: false,
        reason: credentials
          ? 'the run-mode username or password was refused (HTTP 401)'
          : `the page asks for a username and password (HTTP 401): set ${RUN_MODE_USER_ENV} and ${RUN_MODE_PASSWORD_ENV}`,
      };
    }
    if (!response.ok) return { url, found: false, reason: `HTTP ${response.status}` };
    const finalPath = new URL(response.url || url).pathname.replace(/\/+$/, '');
    if (!finalPath.endsWith(`/${token}`)) {
      return { url, found: false, reason: `redirected to ${new URL(response.url).pathname}` };
    }
    if (!body.includes(token)) return { url, found: false, reason: 'the page does not show the token' };
    return { url, found: true };
  } catch (error) {
    return { url, found: false, reason: error instanceof SvcError ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

async function readText(response: Response): Promise<string> {
  // The token is near the top of any page that shows it; the rest is not needed.
  const bytes = await readWebStreamCapped(response.body, {
    maxBytes: MAX_PAGE_BYTES,
    place: response.url,
    truncate: true,
  });
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}
