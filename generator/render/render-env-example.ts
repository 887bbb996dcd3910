/**
 * .env.example: every variable the standalone runtime reads (spec 5.5), names only, each with
 * one line saying what it is. Copy to .env and fill in; .env never belongs in git.
 */
import type { SvcConfig } from '../../schemas/types.js';

interface EnvVar {
  name: string;
  comment: string;
}

export function envVariables(config: SvcConfig): EnvVar[] {
  const mode = config.auth.mode;
  const secretComment =
    mode === 'api_key'
      ? `REQUIRED (auth api_key): the key sent upstream in ${config.auth.apiKey?.in ?? 'header'} "${config.auth.apiKey?.name ?? ''}".`
      : mode === 'bearer'
        ? 'REQUIRED (auth bearer): the token sent upstream as "Authorization: Bearer <token>".'
        : mode === 'basic'
          ? 'REQUIRED (auth basic): the password, or "user:password" when SVC_UPSTREAM_USER is empty.'
          : `Not used (auth mode ${mode}): the token, key or password for api_key, bearer or basic auth.`;
  const userComment =
    mode === 'basic'
      ? 'REQUIRED (auth basic) unless SVC_UPSTREAM_SECRET is "user:password": the user name sent with it.'
      : `Not used (auth mode ${mode}): the user name for basic auth.`;
  const vars: EnvVar[] = [
    { name: 'SVC_UPSTREAM_SECRET', comment: secretComment },
    { name: 'SVC_UPSTREAM_USER', comment: userComment },
    { name: 'MCP_RUNTIME_PORT', comment: 'Optional: the port the runtime listens on (default 3002).' },
    {
      name: 'MCP_RUNTIME_PUBLIC_URL',
      comment: 'Optional: public URL of this server (used in OAuth metadata).',
    },
    {
      name: 'MCP_ALLOWED_ORIGINS',
      comment: 'Optional: browser origins allowed to call the server; when unset every origin is accepted.',
    },
    {
      name: 'SVC_SYNC_URL',
      comment: 'Optional: service API origin to poll for config updates (turns sync on).',
    },
    {
      name: 'SVC_DEPLOY_TOKEN',
      comment: 'Required when SVC_SYNC_URL is set: the deploy token presented when polling.',
    },
    { name: 'SVC_SYNC_INTERVAL', comment: 'Optional: poll interval in seconds (default 60, minimum 10).' },
    {
      name: 'SVC_FOLDER_PATH',
      comment: 'Path to this folder; set by docker-compose.yml (/folder), needed outside it.',
    },
    { name: 'SVC_RUNTIME_MODE', comment: 'Always "standalone"; set by docker-compose.yml.' },
    { name: 'SVC_RUNTIME_IMAGE', comment: 'Optional (docker compose only): the runtime image to run.' },
  ];
  if (mode === 'user_oauth') {
    // Each person signs in at the API's provider through the runtime (docs/oauth.md).
    vars.push(
      {
        name: 'SVC_OAUTH_KEY',
        comment:
          'REQUIRED (auth user_oauth): 32 random bytes, base64 (openssl rand -base64 32); replicas share it.',
      },
      {
        name: config.oauth?.clientIdEnv ?? 'SVC_OAUTH_CLIENT_ID',
        comment: "REQUIRED (auth user_oauth): this server's OAuth client id at the API's provider.",
      },
      {
        name: config.oauth?.clientSecretEnv ?? 'SVC_OAUTH_CLIENT_SECRET',
        comment: "The OAuth client's secret at the API's provider (none for a public client).",
      },
    );
  }
  const known = new Set(vars.map((v) => v.name));
  for (const name of [...config.requiredEnv].sort()) {
    if (!known.has(name)) vars.push({ name, comment: 'Required by this server (config.yaml requiredEnv).' });
  }
  return vars;
}

export function renderEnvExample(config: SvcConfig): string {
  const lines = ['# Copy to .env and fill in. Never commit .env: it holds the upstream secret.', ''];
  for (const v of envVariables(config)) lines.push(`# ${v.comment}`, `${v.name}=`, '');
  return lines.join('\n');
}
