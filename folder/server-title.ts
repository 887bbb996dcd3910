import type { SvcConfig } from '../schemas/types.js';

/** The server name every folder gets; a branch server is named after its branch instead. */
export const DEFAULT_SERVER_NAME = 'Default';

/**
 * What clients display for a folder's server (MCP serverInfo.title, the README heading): the
 * app's name, since "Default" says nothing; a branch server keeps its own name beside it.
 */
export function serverTitle(config: Pick<SvcConfig, 'app' | 'server'>): string {
  const server = config.server.name.trim();
  return server === '' || server === DEFAULT_SERVER_NAME ? config.app.name : `${config.app.name} (${server})`;
}
