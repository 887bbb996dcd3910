/**
 * One tool call, start to end: the tool must be enabled in this config version, its arguments
 * must validate against its input schema, then the upstream request is built and sent.
 * Failures the model can act on come back as isError results; an unknown tool is a protocol
 * error, never an upstream call.
 */
import { ProtocolError, ProtocolErrorCode, type RequestStateCodec } from '@modelcontextprotocol/server';
import { UNMATCHED } from './advertised-output-schema.js';
import type { CancelSignal } from './call-cancel.js';
import type { CompiledTool, LoadedConfig } from './loaded-config.js';
import type { Logger } from './logger.js';
import type { Redactor } from './redact.js';
import { callUpstream, type ToolCallResult, toolError } from './upstream-call.js';
import { buildUpstreamRequest } from './upstream-request.js';
import type { UpstreamTransport } from './upstream-transport.js';

export interface ToolCallDeps {
  transport: UpstreamTransport;
  logger: Logger;
  redact: Redactor;
  secret?: string;
  /** SVC_UPSTREAM_USER, for basic auth. */
  user?: string;
  timeoutMs: number;
  maxResponseBytes: number;
  now: () => number;
  /** Seals the state of a write awaiting the person's yes (search mode, contracts/discovery.md). */
  confirmations?: RequestStateCodec<unknown>;
}

/**
 * What one MCP HTTP request brings to its tool calls: its headers (config.yaml forwardHeaders
 * picks those sent upstream) and, in user_oauth mode, the end user's upstream access token,
 * unsealed from svc's own token by the auth gate (runtime/auth/). Both eras, both paths.
 */
export interface CallContext {
  headers?: Headers;
  /** user_oauth: the end user's upstream access token. Never svc's own token. */
  userToken?: string;
  /** Set when the upstream answered 401 to userToken: the app answers with a 401 challenge. */
  userTokenRejected?: boolean;
}

const MAX_LISTED_PROBLEMS = 20;

function describeAjvErrors(errors: { instancePath: string; message?: string; params?: unknown }[]): string[] {
  return errors.slice(0, MAX_LISTED_PROBLEMS).map((e) => {
    const where = e.instancePath === '' ? '(arguments)' : e.instancePath;
    const extra =
      e.params && typeof e.params === 'object' && 'additionalProperty' in e.params
        ? ` "${String((e.params as { additionalProperty: unknown }).additionalProperty)}"`
        : e.params && typeof e.params === 'object' && 'allowedValues' in e.params
          ? `: ${JSON.stringify((e.params as { allowedValues: unknown }).allowedValues)}`
          : '';
    return `${where} ${e.message ?? 'is invalid'}${extra}`;
  });
}

export async function callTool(
  loaded: LoadedConfig,
  deps: ToolCallDeps,
  name: string,
  rawArgs: Record<string, unknown> | undefined,
  signal?: CancelSignal,
  call?: CallContext,
): Promise<ToolCallResult> {
  const tool = loaded.tools.get(name);
  if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  return callCompiledTool(loaded, deps, tool, rawArgs, signal, call);
}

/** Calls a tool of this config version that the caller has already found (by name or by search). */
export async function callCompiledTool(
  loaded: LoadedConfig,
  deps: ToolCallDeps,
  tool: CompiledTool,
  rawArgs: Record<string, unknown> | undefined,
  signal?: CancelSignal,
  call?: CallContext,
): Promise<ToolCallResult> {
  const name = tool.listed.name;
  if (loaded.callsRefused) return toolError(loaded.callsRefused);
  const userToken = loaded.userOAuth ? call?.userToken : undefined;
  if (loaded.userOAuth && !userToken) {
    return toolError(
      'This server acts as each signed-in person (user_oauth): this request carries no user authorization.',
    );
  }
  if (loaded.needsSecret && !deps.secret) {
    return toolError('SVC_UPSTREAM_SECRET is not set: this server cannot authenticate to its API.');
  }
  const args = rawArgs ?? {};
  const validator = tool.validator();
  if ('error' in validator) return toolError(validator.error);
  if (!validator(args)) {
    const problems = describeAjvErrors(validator.errors ?? []);
    return toolError(
      deps.redact(`Invalid arguments for tool ${name}:\n${problems.map((p) => `- ${p}`).join('\n')}`),
    );
  }
  const built = buildUpstreamRequest(tool.item.tool, args, {
    config: loaded.folder.config,
    ...(deps.secret ? { secret: deps.secret } : {}),
    ...(deps.user ? { user: deps.user } : {}),
  });
  if (!built.ok) {
    return toolError(
      deps.redact(`Invalid arguments for tool ${name}:\n${built.problems.map((p) => `- ${p}`).join('\n')}`),
    );
  }
  const headers = call?.headers;
  if (loaded.forwardHeaders && headers) {
    // The request's own value wins over an argument of the same name: the model cannot pick a tenant.
    for (const h of loaded.forwardHeaders) {
      const value = headers.get(h);
      if (value !== null) built.request.headers[h] = value;
    }
  }
  let redact = deps.redact;
  if (userToken) {
    built.request.headers.authorization = `Bearer ${userToken}`;
    redact = (text) => deps.redact(text).split(userToken).join('[REDACTED]');
  }
  const started = deps.now();
  const outcome = await callUpstream(built.request, {
    transport: deps.transport,
    timeoutMs: deps.timeoutMs,
    maxResponseBytes: deps.maxResponseBytes,
    redact,
    structured: tool.listed.outputSchema !== undefined,
    toolName: name,
    ...(signal ? { signal } : {}),
  });
  if (userToken && outcome.status === 401 && call) call.userTokenRejected = true;
  const result = checkStructured(tool, outcome.result, deps);
  deps.logger.log(result.isError ? 'warn' : 'debug', 'tool_call', {
    tool: name,
    method: built.request.method,
    status: outcome.status,
    failure: outcome.failure,
    ms: Math.round((deps.now() - started) * 10) / 10,
    configVersion: loaded.version,
  });
  return result;
}

/**
 * A tool that declares an outputSchema advertises it or the UNMATCHED marker
 * (advertised-output-schema.ts), and every successful result keeps that promise: clients (the
 * official SDK among them) throw when structuredContent is missing or does not match. So the
 * upstream's JSON object goes out as structuredContent only when it validates against the
 * declared schema; otherwise the marker does, the text goes out with a first line saying why,
 * and the call stays a success (a model told "error" may repeat a call that is not idempotent).
 * Each such case is logged, with the schema path, never the value.
 */
function checkStructured(tool: CompiledTool, result: ToolCallResult, deps: ToolCallDeps): ToolCallResult {
  if (result.isError) return result;
  const validate = tool.outputValidator();
  if (!validate) return result;
  let reason: string;
  if ('error' in validate) reason = validate.error;
  else if (result.structuredContent === undefined) reason = 'the upstream answer is not a JSON object';
  else if (validate(result.structuredContent)) return result;
  else
    reason = describeAjvErrors(validate.errors ?? [])
      .slice(0, 3)
      .map((p) => p.replace(/^\(arguments\)/, '(root)'))
      .join('; ');
  reason = deps.redact(reason);
  deps.logger.log('warn', 'structured_content_dropped', { tool: tool.listed.name, reason });
  return {
    ...result,
    content: [
      {
        type: 'text',
        text: `The upstream answer does not match this tool's output schema (${reason}); it follows as text.`,
      },
      ...result.content,
    ],
    structuredContent: { ...UNMATCHED },
  };
}
