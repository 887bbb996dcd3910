/**
 * The `Svc-Config-Commit` header every MCP answer carries: which config produced it, so an
 * operator can say which reviewed commit answered a call. The folder's git commit when known
 * (a clean checkout, or a control snapshot), else its content digest (`sha256:<hex>`).
 */
import type { LoadedConfig } from './loaded-config.js';

export const CONFIG_COMMIT_HEADER = 'svc-config-commit';

export function configCommit(config: LoadedConfig): string {
  return config.commit ?? `sha256:${config.digest}`;
}

/** Sets the header on the answer, copying an immutable one (the body goes along unread). */
export function stampCommit(response: Response, commit: string): Response {
  try {
    response.headers.set(CONFIG_COMMIT_HEADER, commit);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    headers.set(CONFIG_COMMIT_HEADER, commit);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}
