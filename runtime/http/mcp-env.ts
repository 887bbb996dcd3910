/**
 * The Hono environment of the MCP routes: what the middleware of runtime/http/ hand each other
 * through `c.var`, in the order they run (runtime/app.ts composes them).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CancelSignal } from '../call-cancel.js';
import type { CallContext } from '../tool-call.js';

/** What @hono/node-server passes as env; absent under `app.request()` and other runtimes. */
export interface NodeBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
}

/** Aborted when the client goes away before its answer is out; `done` stops watching. */
export interface ClientWatch {
  signal: CancelSignal;
  done(): void;
}

export interface McpVariables {
  /** request-entry: the caller's socket address, when there is a socket. */
  remoteAddress: string | undefined;
  /** request-context: the client's address, behind a trusted balancer too (session caps count it). */
  client: string;
  /** request-entry: starts watching for the client going away (the hot path's cancellation). */
  watchClient: () => ClientWatch;
  /** request-entry: the context the inbound auth gate filed under the request, if any. */
  gateCall: CallContext | undefined;
  /** host-origin: the allowed browser origin the answer's CORS headers name, if any. */
  corsOrigin: string | undefined;
  /** json-body: the POSTed JSON-RPC message, when it parsed. */
  parsedBody: unknown;
  /** json-body: the request passed on (a copy carrying the body when it did not parse). */
  forward: Request;
  /** server-route: the `{serverId}` of /mcp/{serverId}, if given. */
  pathId: string | undefined;
  /** server-route: the body carries the 2026 `_meta` envelope claim. */
  claim: boolean;
  /** call-context: what this request's tool calls carry (caller, user token, trace). */
  context: CallContext;
}

export type McpEnv = { Bindings: NodeBindings; Variables: McpVariables };
