/**
 * What an import reads and the config it starts from, decided before anything is read: the
 * folder's config (or the one `svc init` built) with --compact, an app-builder app's document and
 * base URL, the source plan, and a location or content directory given on the command line
 * recorded as the folder's source. Pure: the shell uses it to know what to read, the planner to plan.
 */
import { SvcError } from '../../core/svc-error.js';
import type { SvcConfig } from '../../schemas/types.js';
import { apiBaseUrlOf, swaggerUrlOf } from '../sources/app-builder-urls.js';
import type { ImportOptions, PreviousFolder } from './import-types.js';
import { recordableLocation } from './recordable-location.js';
import { planSource, type SourcePlan } from './source-reader.js';

export interface ImportTarget {
  config: SvcConfig;
  /** What history and reports name. */
  location: string;
  contentDir?: string;
  /** The reader of the source (its read() does the I/O; the planner never calls it). */
  source: SourcePlan;
  /** --allow-external-refs, or the source's own setting. */
  allowExternalRefs: boolean;
}

export type TargetResult =
  | { ok: true; target: ImportTarget }
  /** `recorded: false`: refused before anything was attempted (no history record). */
  | {
      ok: false;
      error: SvcError;
      location: string;
      contentDir?: string;
      plan?: SourcePlan;
      recorded: boolean;
    };

export function importTarget(previous: PreviousFolder | undefined, opts: ImportOptions): TargetResult {
  const given = opts.config ?? previous?.folder.config;
  if (!given) throw new SvcError('USAGE', 'an import needs a config or a server folder');
  let config = opts.compact && given.compact !== true ? { ...given, compact: true } : given;
  let location = opts.location ?? '';
  if (config.source.kind === 'app_builder') {
    const app = appBuilderTarget(config, location, opts);
    if (!app.ok) return { ok: false, error: app.error, location, recorded: false };
    ({ config, location } = app);
  }
  let plan: SourcePlan;
  try {
    plan = planSource(config.source, {
      dir: opts.dir,
      ...(location ? { location } : {}),
      ...(opts.contentDir !== undefined ? { contentDir: opts.contentDir } : {}),
      ...(opts.ref !== undefined ? { ref: opts.ref } : {}),
      ...(opts.git ? { git: opts.git } : {}),
    });
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    return { ok: false, error, location, recorded: true };
  }
  const where = {
    location: plan.location,
    ...(plan.contentDir !== undefined ? { contentDir: plan.contentDir } : {}),
  };
  if (!plan.location) {
    const error = new SvcError(
      'USAGE',
      `this server's source (${config.source.kind}) has no OpenAPI document to import; give --openapi`,
    );
    return { ok: false, error, ...where, plan, recorded: true };
  }
  const allowExternalRefs =
    opts.allowExternalRefs ??
    (config.source.kind === 'openapi' ? config.source.allowExternalRefs === true : false);
  if (previous) config = withGivenSource(config, opts);
  return { ok: true, target: { config, ...where, source: plan, allowExternalRefs } };
}

/**
 * Spec 3.2: an app-builder app imports only once its ownership is verified. Spec 4.5.5: it has no
 * base URL of its own; it follows the app id, the branch and the custom domain, so editing
 * `customDomain` moves both on the next import.
 */
function appBuilderTarget(
  config: SvcConfig,
  location: string,
  opts: ImportOptions,
): { ok: true; config: SvcConfig; location: string } | { ok: false; error: SvcError } {
  const source = config.source;
  if (source.kind !== 'app_builder') return { ok: true, config, location };
  if (source.verified !== true) {
    const error = new SvcError(
      'NOT_VERIFIED',
      'this app-builder app is not verified yet: publish the verification page, then run `svc verify` (it prints the token)',
      { place: { file: `${opts.dir}/config.yaml`, field: 'source.verified' } },
    );
    return { ok: false, error };
  }
  const place = { ...source, platformOrigin: source.platformOrigin ?? opts.appBuilderOrigin };
  return {
    ok: true,
    config: { ...config, apiBaseUrl: apiBaseUrlOf(place) },
    location: location || swaggerUrlOf(place),
  };
}

/**
 * A source given on the command line becomes the folder's source, so that a later plain
 * `svc import` reads the same document (a URL carrying credentials is not written down).
 */
function withGivenSource(config: SvcConfig, opts: ImportOptions): SvcConfig {
  const source = config.source;
  if (source.kind !== 'openapi') return config;
  const given: Partial<typeof source> = {};
  if (
    opts.location &&
    opts.location !== source.location &&
    recordableLocation(opts.location) === opts.location
  )
    given.location = opts.location;
  if (opts.contentDir !== undefined && opts.contentDir !== source.contentDir)
    given.contentDir = opts.contentDir;
  return Object.keys(given).length > 0 ? { ...config, source: { ...source, ...given } } : config;
}
