/**
 * Every MCP answer names the config that produced it (`Svc-Config-Commit`, runtime/config-commit.ts):
 * a 2025 session's answer comes from the config it started with, anything else from the newest.
 */
import type { MiddlewareHandler } from 'hono';
import { configCommit, stampCommit } from '../config-commit.js';
import type { ConfigStore } from '../config-store.js';
import type { LegacySessions } from '../legacy-sessions.js';
import type { McpEnv } from './mcp-env.js';

export function commitStamp(options: {
  store: ConfigStore;
  sessions: LegacySessions;
}): MiddlewareHandler<McpEnv> {
  const { store, sessions } = options;
  return async function commitStamp(c, next) {
    await next();
    if (c.error) return;
    const response = c.res;
    const sid = response.headers.get('mcp-session-id') ?? c.req.raw.headers.get('mcp-session-id');
    const served = (sid ? sessions.configOf(sid) : undefined) ?? store.current();
    const stamped = stampCommit(response, configCommit(served));
    if (stamped !== response) c.res = stamped;
  };
}
