/**
 * The config.yaml of a new server folder, from what the user gave `svc init`. Pure: the
 * caller resolves paths. Fails closed on anything that would put a secret into the folder
 * (a URL carrying credentials) or leave the runtime unable to call the API.
 */
import { SvcError } from '../../core/svc-error.js';
import { DEFAULT_SERVER_NAME } from '../../folder/server-title.js';
import type { Auth, Source, SvcConfig } from '../../schemas/types.js';
import { validate, formatViolations } from '../../schemas/validate.js';

export interface InitialConfigInput {
  name: string;
  serverId: string;
  /** openapi: a URL, or a path relative to the folder. manual: undefined. */
  openapi?: string;
  contentDir?: string;
  /** A git repository or raw-URL source (svc init --git / --raw-url), instead of `openapi`. */
  git?: Extract<Source, { kind: 'git' }>;
  allowExternalRefs?: boolean;
  baseUrl?: string;
  auth?: { mode: Auth['mode']; apiKeyIn?: 'header' | 'query'; apiKeyName?: string };
  description?: string;
  /** Short tool descriptions (--compact); recorded so every later import keeps them short. */
  compact?: boolean;
  logoUrl?: string;
  website?: string;
}

export const UPSTREAM_SECRET_ENV = 'SVC_UPSTREAM_SECRET';
export const UPSTREAM_USER_ENV = 'SVC_UPSTREAM_USER';

export function serverIdFrom(text: string): string {
  const slug = text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return slug || 'default';
}

// Query parameters that carry credentials in the wild (signed URLs, API keys, tokens).
const SECRET_PARAM =
  /^(access[_-]?token|token|api[_-]?key|apikey|key|secret|client[_-]?secret|password|passwd|sig|signature|x-amz-signature|auth)$/i;

function secretQueryParameter(url: string): string | undefined {
  try {
    return [...new URL(url).searchParams.keys()].find((k) => SECRET_PARAM.test(k));
  } catch {
    return undefined;
  }
}

export function initialConfig(input: InitialConfigInput): SvcConfig {
  const mode = input.auth?.mode ?? 'none';
  const manual = input.openapi === undefined && input.git === undefined;
  if (manual && !input.baseUrl) {
    throw new SvcError('USAGE', 'a manual app needs an API base URL (--base-url)', {
      place: { field: 'apiBaseUrl' },
    });
  }
  for (const [field, url] of [
    ['source.location', input.openapi],
    ['source.repository', input.git?.repository],
    ['source.rawUrlTemplate', input.git?.rawUrlTemplate],
    ['apiBaseUrl', input.baseUrl],
  ] as const) {
    if (url && /^https?:\/\/[^/]*@/i.test(url)) {
      throw new SvcError(
        'USAGE',
        'a URL with credentials (user:password@) would put a secret into the folder',
        { place: { field } },
      );
    }
    const secretParam = url ? secretQueryParameter(url) : undefined;
    if (secretParam) {
      throw new SvcError(
        'USAGE',
        `the URL's query parameter "${secretParam}" looks like a credential and would be written to config.yaml; serve the document without it`,
        { place: { field } },
      );
    }
  }

  const auth: Auth = { mode, hasAuthSecret: mode === 'api_key' || mode === 'bearer' || mode === 'basic' };
  if (mode === 'api_key') {
    if (!input.auth?.apiKeyName) {
      throw new SvcError('USAGE', 'api_key auth needs the header or query parameter name (--api-key-name)', {
        place: { field: 'auth.apiKey.name' },
      });
    }
    auth.apiKey = { in: input.auth.apiKeyIn ?? 'header', name: input.auth.apiKeyName };
  } else if (input.auth?.apiKeyName || input.auth?.apiKeyIn) {
    throw new SvcError('USAGE', '--api-key-in and --api-key-name only apply to --auth api_key', {
      place: { field: 'auth.apiKey' },
    });
  }

  const source: Source = input.git
    ? input.git
    : manual
      ? { kind: 'manual' }
      : {
          kind: 'openapi',
          location: input.openapi as string,
          ...(input.contentDir ? { contentDir: input.contentDir } : {}),
          ...(input.allowExternalRefs ? { allowExternalRefs: true } : {}),
        };

  const config: SvcConfig = {
    schemaVersion: 1,
    server: { id: input.serverId, name: DEFAULT_SERVER_NAME, published: false },
    app: {
      name: input.name,
      ...(input.description ? { description: input.description } : {}),
      ...(input.logoUrl ? { logoUrl: input.logoUrl } : {}),
      ...(input.website ? { website: input.website } : {}),
      provider: input.git ? 'git' : manual ? 'manual' : 'openapi',
    },
    source,
    auth,
    ...(input.compact ? { compact: true } : {}),
    // An OpenAPI app may leave it empty: the first import fills in the document's default.
    apiBaseUrl: input.baseUrl?.replace(/\/+$/, '') ?? '',
    // basic: the user comes from SVC_UPSTREAM_USER, unless the secret is `user:password`.
    requiredEnv:
      mode === 'basic'
        ? [UPSTREAM_SECRET_ENV, UPSTREAM_USER_ENV]
        : auth.hasAuthSecret
          ? [UPSTREAM_SECRET_ENV]
          : [],
  };
  const checked = validate('config', {
    ...config,
    apiBaseUrl: config.apiBaseUrl || 'http://placeholder.invalid',
  });
  if (!checked.ok) {
    throw new SvcError('USAGE', 'the app settings are not valid', {
      details: formatViolations(checked.errors),
    });
  }
  return config;
}
