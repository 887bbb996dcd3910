/**
 * Read env: what boot refuses or warns about before anything listens. The same checks refuse a
 * reloaded or synced folder, so a running runtime never swaps in a config it could not boot with.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { SvcError } from '../../core/svc-error.js';
import type { FolderModel } from '../../folder/model.js';
import { warnInboundAuth } from '../auth/boot-checks.js';
import type { RuntimeEnv } from '../env.js';
import type { Logger } from '../logger.js';

/** Below this length an upstream secret is warned about: redacting it mangles ordinary text. */
export const MIN_SECRET_CHARS = 8;

export function checkBootConfig(folder: FolderModel, env: RuntimeEnv, logger: Logger): void {
  const auth = folder.config.auth;
  const secretModes = ['api_key', 'bearer', 'basic'];
  if (secretModes.includes(auth.mode) && auth.hasAuthSecret && !env.upstreamSecret) {
    throw new SvcError(
      'CONFIG_MISSING_ENV',
      `SVC_UPSTREAM_SECRET is not set: config.yaml uses auth mode "${auth.mode}", whose credential comes only from that variable`,
      { place: { file: 'config.yaml', field: 'SVC_UPSTREAM_SECRET' } },
    );
  }
  if (auth.mode === 'basic' && env.upstreamSecret && !env.upstreamUser && !env.upstreamSecret.includes(':')) {
    throw new SvcError(
      'CONFIG_MISSING_ENV',
      'SVC_UPSTREAM_USER is not set and SVC_UPSTREAM_SECRET is not "user:password": basic auth needs a user name',
      { place: { file: 'config.yaml', field: 'SVC_UPSTREAM_USER' } },
    );
  }
  if (env.upstreamSecret && [...env.upstreamSecret].length < MIN_SECRET_CHARS) {
    // The redactor still replaces it everywhere: no secret reaching a client beats readable results.
    logger.log('warn', 'short_secret', {
      message: `SVC_UPSTREAM_SECRET is shorter than ${MIN_SECRET_CHARS} characters. Redaction still replaces it in every form it knows (any letter case, percent-, JSON-, HTML-escaped, hex, base64) wherever it appears in a result, an error or a log line, inside words too, so results and logs will show [REDACTED] in ordinary text. Use a longer credential if the API allows one.`,
    });
  }
  warnInboundAuth(folder, env, logger);
}

/** SVC_SNAPSHOT_PUBLIC_KEY: the PEM itself, or the path of a file holding it. */
export async function snapshotPublicKey(value: string): Promise<KeyObject> {
  let pem = value;
  if (!value.includes('-----BEGIN')) {
    try {
      pem = await readFile(value, 'utf8');
    } catch (error) {
      throw new SvcError('CONFIG_MISSING_ENV', `SVC_SNAPSHOT_PUBLIC_KEY: cannot read the file ${value}`, {
        place: { field: 'SVC_SNAPSHOT_PUBLIC_KEY', file: value },
        cause: error,
      });
    }
  }
  try {
    const key = createPublicKey(pem);
    if (key.asymmetricKeyType === 'ed25519') return key;
  } catch {
    // Reported below.
  }
  throw new SvcError(
    'USAGE',
    'SVC_SNAPSHOT_PUBLIC_KEY is not an Ed25519 public key in PEM (see svc control key)',
    {
      place: { field: 'SVC_SNAPSHOT_PUBLIC_KEY' },
    },
  );
}

/** The boot messages a deployer must see, once the runtime listens. */
export function warnOriginsUnrestricted(env: RuntimeEnv, logger: Logger): void {
  if (env.allowedOrigins) return;
  logger.log('warn', 'origins_unrestricted', {
    message:
      'MCP_ALLOWED_ORIGINS is not set: browser requests from every origin are accepted. Set it to a comma-separated list of origins to restrict them.',
  });
}

export function warnNoTools(enabled: number, logger: Logger): void {
  if (enabled > 0) return;
  logger.log('warn', 'no_enabled_tools', {
    message: 'no tool is enabled: set enabled: true in Tools/<tool>.yaml',
  });
}
