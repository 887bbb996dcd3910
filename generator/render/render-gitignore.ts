/**
 * The `.gitignore` svc writes when it makes a server folder (a first import, a manual or
 * app-builder folder): the secrets the runtime reads from `.env` stay out of git. It is written
 * once and is the user's from then on: a re-import never rewrites it (it is not a managed path),
 * and an existing `.gitignore` kept by `svc init --force` wins.
 */
export const GITIGNORE_FILE = '.gitignore';

export function renderGitignore(): string {
  return [
    '# Written by svc when it made this folder; yours to edit (a re-import never rewrites it).',
    '# Secrets stay out of git: the runtime reads them from .env (copy .env.example, which is committed).',
    '.env',
    '.env.*',
    '!.env.example',
    '',
  ].join('\n');
}
