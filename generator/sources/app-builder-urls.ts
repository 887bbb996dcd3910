/**
 * Where an app-builder (Bubble) app serves its API, its Swagger document and its pages, per
 * branch. Pure: every URL comes from the app id, the branch, the custom domain and the
 * platform's origin template. Live is the live version, Main is `version-test`, and any other
 * branch is the version served at `/version-<id>/` (spec 2.3, 9).
 */
import { SvcError } from '../../core/svc-error.js';

/** The platform's origin; `{app}` is the app id. */
export const DEFAULT_APP_BUILDER_ORIGIN = 'https://{app}.bubbleapps.io';
/** Overrides the default origin (a dedicated cluster, a test stand-in); `{app}` is the app id. */
export const APP_BUILDER_ORIGIN_ENV = 'SVC_APP_BUILDER_ORIGIN';

/** The version segment of the platform's API paths (spec 9). */
const API_PATH = '/api/1.1';

export const LIVE_BRANCH = 'live';
export const MAIN_BRANCH = 'main';

export interface AppBuilderPlace {
  appId: string;
  branch: string;
  customDomain?: string | undefined;
  /** The origin template; default DEFAULT_APP_BUILDER_ORIGIN. */
  platformOrigin?: string | undefined;
}

const APP_ID = /^[a-z0-9][a-z0-9-]*$/;
const BRANCH_ID = /^[a-z0-9][a-z0-9_-]*$/;

export function checkAppId(appId: string): string {
  if (!APP_ID.test(appId)) {
    throw new SvcError(
      'USAGE',
      `"${appId}" is not an app id: the app's subdomain on the platform (lower-case letters, digits, -)`,
      { place: { field: 'source.appId' } },
    );
  }
  return appId;
}

/** An extra branch id (`--branch <id>`): not live/test, which name the two default branches. */
export function checkBranchId(id: string): string {
  if (!BRANCH_ID.test(id) || ['live', 'test', 'main'].includes(id)) {
    throw new SvcError(
      'USAGE',
      `"${id}" is not an extra branch id (lower-case letters, digits, - and _; live, main and test name the default branches)`,
      { place: { field: 'source.branch' } },
    );
  }
  return id;
}

/** The folder (and server name) of a branch: live, main, version-<id>. */
export function branchFolder(branch: string): string {
  return branch === LIVE_BRANCH || branch === MAIN_BRANCH ? branch : `version-${branch}`;
}

/** The path prefix of a branch's version: none for live. */
export function versionPrefix(branch: string): string {
  if (branch === LIVE_BRANCH) return '';
  if (branch === MAIN_BRANCH) return '/version-test';
  return `/version-${branch}`;
}

/** The platform origin of an app: the template with `{app}` filled in, no trailing slash. */
export function platformOriginOf(appId: string, template: string = DEFAULT_APP_BUILDER_ORIGIN): string {
  const filled = template.replaceAll('{app}', appId).replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(filled);
  } catch {
    throw new SvcError('USAGE', `the app-builder origin "${template}" is not a URL`, {
      place: { field: 'source.platformOrigin' },
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SvcError('USAGE', `the app-builder origin "${template}" is not http(s)`, {
      place: { field: 'source.platformOrigin' },
    });
  }
  return filled;
}

/** A custom domain as an origin: a bare host is served over https. */
export function customOrigin(domain: string): string {
  const trimmed = domain.trim().replace(/\/+$/, '');
  return /^https?:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
}

/** The origin a branch is served from: Live uses the custom domain when there is one. */
export function branchOrigin(place: AppBuilderPlace): string {
  if (place.branch === LIVE_BRANCH && place.customDomain) return customOrigin(place.customDomain);
  return platformOriginOf(place.appId, place.platformOrigin);
}

/** Each tool's path is appended to it: `<origin>[/version-x]/api/1.1`. */
export function apiBaseUrlOf(place: AppBuilderPlace): string {
  return `${branchOrigin(place)}${versionPrefix(place.branch)}${API_PATH}`;
}

/** The branch's Swagger document (spec 2.3). */
export function swaggerUrlOf(place: AppBuilderPlace): string {
  return `${apiBaseUrlOf(place)}/meta/swagger.json`;
}

/** The platform's meta description of the app, read to detect the custom Live domain. */
export function metaUrlOf(appId: string, template?: string): string {
  return `${platformOriginOf(appId, template)}${API_PATH}/meta`;
}

/** The verification page of a branch: a page whose slug is the token. */
export function verificationPageUrlOf(place: AppBuilderPlace, token: string): string {
  return `${branchOrigin(place)}${versionPrefix(place.branch)}/${token}`;
}

/**
 * The custom domain the meta response names (`app_data.domain`), if any. The meta format is not
 * documented, so anything unexpected means "not detected" rather than an error.
 */
export function customDomainFromMeta(meta: unknown): string | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const appData = (meta as { app_data?: unknown }).app_data;
  if (typeof appData !== 'object' || appData === null) return undefined;
  const domain = (appData as { domain?: unknown }).domain;
  if (typeof domain !== 'string') return undefined;
  const trimmed = domain.trim();
  // A host name, or an origin; never a path or credentials.
  if (!/^(https?:\/\/)?[A-Za-z0-9.-]+(:\d{1,5})?\/?$/.test(trimmed)) return undefined;
  // The platform's own host is no custom domain.
  if (/(^|\.)bubbleapps\.io$/i.test(trimmed.replace(/^https?:\/\//i, '').replace(/[:/].*$/, '')))
    return undefined;
  return trimmed.replace(/\/+$/, '') || undefined;
}
