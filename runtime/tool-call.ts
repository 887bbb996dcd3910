/**
 * One tool call, start to end: the tool must be enabled in this config version, its arguments
 * must validate against its input schema, then the upstream request is built and sent.
 * Failures the model can act on come back as isError results; an unknown tool is a protocol
 * error, never an upstream call.
 */
import { ProtocolError, ProtocolErrorCode, type RequestStateCodec } from '@modelcontextprotocol/server';
import { UNMATCHED } from '../folder/advertised-output-schema.js';
import type { CancelSignal } from './call-cancel.js';
import type { CompiledTool, LoadedConfig } from './loaded-config.js';
import type { Logger } from './logger.js';
import { describeRefusal, type RateLimits } from './rate-limit.js';
import type { Redactor } from './redact.js';
import { callUpstream, type ToolCallResult, toolError, type UpstreamOutcome } from './upstream-call.js';
import { buildUpstreamRequest, type UpstreamRequest } from './upstream-request.js';
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
  /** Counters of config.yaml `rateLimits` (rate-limit.ts); absent: nothing is limited. */
  limits?: RateLimits;
  /** The context of the MCP request being served, for calls made through the SDK (AsyncLocalStorage). */
  context?: () => CallContext | undefined;
  /** Told of every finished call (metrics, execution log); absent: nothing is recorded. */
  observe?: (
    record: CallRecord,
    args: Record<string, unknown> | undefined,
    result: ToolCallResult,
    loaded: LoadedConfig,
  ) => void;
  /** Wraps the upstream call (a trace span, a traceparent header); absent: the call as it is. */
  aroundUpstream?: (
    tool: string,
    request: UpstreamRequest,
    context: CallContext | undefined,
    send: (request: UpstreamRequest) => Promise<UpstreamOutcome>,
  ) => Promise<UpstreamOutcome>;
}

/**
 * What one MCP request gives the tool calls it makes: who asked and the trace it belongs to
 * (contracts/operations.md), the headers forwardHeaders passes on and the end user's upstream
 * token (contracts/oauth.md). One object per request: the auth gate, the app and the call share it.
 */
export interface CallContext {
  /** The authenticated subject, else the client address (rate-limit.ts callerOf). */
  caller?: string;
  /** The W3C traceparent the call's span is a child of (set by the tracing, when on). */
  traceparent?: string;
  /** The trace id of the call, for the execution log. */
  traceId?: string;
  /** The MCP request's headers (config.yaml forwardHeaders). */
  headers?: Headers;
  /**
   * Who the inbound gate authenticated: a sign-in (`grant:<id>`, user_oauth and MCP_AUTH=oauth) or
   * a token of SVC_MCP_TOKENS (`bearer:<index>`). A 2025-era session is bound to it.
   */
  principal?: string;
  /** user_oauth: the end user's upstream access token. Never svc's own token. */
  userToken?: string;
  /** Set when the upstream answered 401 to userToken: the app answers with a 401 challenge. */
  userTokenRejected?: boolean;
}

/** contracts/operations.md: svc_tool_calls_total{outcome}. */
export type CallOutcome = 'ok' | 'tool_error' | 'upstream_error' | 'invalid' | 'rate_limited' | 'refused';

/** One finished tool call, as metrics and the execution log see it. */
export interface CallRecord {
  tool: string;
  outcome: CallOutcome;
  /** The upstream's HTTP status, when it answered. */
  status?: number;
  /** timeout, network, too_large, cancelled: why no answer arrived. */
  failure?: string;
  durationMs: number;
  /** Bytes of the upstream's answer body. */
  bytes?: number;
  caller?: string;
  traceId?: string;
  configVersion: number;
}

/**
 * What one MCP HTTP request brings to its tool calls: its headers (config.yaml forwardHeaders
 * picks those sent upstream) and, in user_oauth mode, the end user's upstream access token,
 * unsealed from svc's own token by the auth gate (runtime/auth/). Both eras, both paths.
 */

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
  context?: CallContext,
): Promise<ToolCallResult> {
  const tool = loaded.tools.get(name);
  if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  return callCompiledTool(loaded, deps, tool, rawArgs, signal, context);
}

/**
 * Calls a tool of this config version that the caller has already found (by name or by search).
 * Every path (the hot path, the SDK's handler, search mode's call_tool) comes through here, so
 * the rate limits, metrics and execution log see every call once.
 */
export async function callCompiledTool(
  loaded: LoadedConfig,
  deps: ToolCallDeps,
  tool: CompiledTool,
  rawArgs: Record<string, unknown> | undefined,
  signal?: CancelSignal,
  context: CallContext | undefined = deps.context?.(),
): Promise<ToolCallResult> {
  if (!deps.observe) return (await runCall(loaded, deps, tool, rawArgs, signal, context)).result;
  const started = deps.now();
  const done = await runCall(loaded, deps, tool, rawArgs, signal, context);
  const record: CallRecord = {
    tool: tool.listed.name,
    outcome: done.outcome,
    durationMs: deps.now() - started,
    configVersion: loaded.version,
  };
  if (done.upstream?.status !== undefined) record.status = done.upstream.status;
  if (done.upstream?.failure !== undefined) record.failure = done.upstream.failure;
  if (done.upstream?.bytes !== undefined) record.bytes = done.upstream.bytes;
  if (context?.caller !== undefined) record.caller = context.caller;
  if (context?.traceId !== undefined) record.traceId = context.traceId;
  deps.observe(record, rawArgs, done.result, loaded);
  return done.result;
}

interface CallDone {
  result: ToolCallResult;
  outcome: CallOutcome;
  upstream?: UpstreamOutcome;
}

async function runCall(
  loaded: LoadedConfig,
  deps: ToolCallDeps,
  tool: CompiledTool,
  rawArgs: Record<string, unknown> | undefined,
  signal: CancelSignal | undefined,
  context: CallContext | undefined,
): Promise<CallDone> {
  const name = tool.listed.name;
  if (loaded.callsRefused) return { outcome: 'refused', result: toolError(loaded.callsRefused) };
  const userToken = loaded.userOAuth ? context?.userToken : undefined;
  if (loaded.userOAuth && !userToken) {
    return {
      outcome: 'refused',
      result: toolError(
        'This server acts as each signed-in person (user_oauth): this request carries no user authorization.',
      ),
    };
  }
  if (loaded.needsSecret && !deps.secret) {
    return {
      outcome: 'refused',
      result: toolError('SVC_UPSTREAM_SECRET is not set: this server cannot authenticate to its API.'),
    };
  }
  const limited = deps.limits?.check(loaded.folder.config, name, context?.caller ?? 'unknown');
  if (limited) {
    const refusal = await limited;
    if (refusal) {
      deps.logger.log('warn', 'rate_limited', {
        tool: name,
        limit: refusal.limit,
        retryAfterSeconds: refusal.retryAfterSeconds,
      });
      return { outcome: 'rate_limited', result: toolError(describeRefusal(refusal, name)) };
    }
  }
  const args = rawArgs ?? {};
  const validator = tool.validator();
  if ('error' in validator) return { outcome: 'invalid', result: toolError(validator.error) };
  if (!validator(args)) {
    const problems = describeAjvErrors(validator.errors ?? []);
    return {
      outcome: 'invalid',
      result: toolError(
        deps.redact(`Invalid arguments for tool ${name}:\n${problems.map((p) => `- ${p}`).join('\n')}`),
      ),
    };
  }
  const built = buildUpstreamRequest(tool.item.tool, args, {
    config: loaded.folder.config,
    ...(deps.secret ? { secret: deps.secret } : {}),
    ...(deps.user ? { user: deps.user } : {}),
  });
  if (!built.ok) {
    return {
      outcome: 'invalid',
      result: toolError(
        deps.redact(`Invalid arguments for tool ${name}:\n${built.problems.map((p) => `- ${p}`).join('\n')}`),
      ),
    };
  }
  const headers = context?.headers;
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
  const send = (request: UpstreamRequest) =>
    callUpstream(request, {
      transport: deps.transport,
      timeoutMs: deps.timeoutMs,
      maxResponseBytes: deps.maxResponseBytes,
      redact,
      structured: tool.listed.outputSchema !== undefined,
      toolName: name,
      ...(signal ? { signal } : {}),
    });
  const outcome = deps.aroundUpstream
    ? await deps.aroundUpstream(name, built.request, context, send)
    : await send(built.request);
  if (userToken && outcome.status === 401 && context) context.userTokenRejected = true;
  const result = checkStructured(tool, outcome.result, deps);
  deps.logger.log(result.isError ? 'warn' : 'debug', 'tool_call', {
    tool: name,
    method: built.request.method,
    status: outcome.status,
    failure: outcome.failure,
    ms: Math.round((deps.now() - started) * 10) / 10,
    configVersion: loaded.version,
  });
  const answered = outcome.status !== undefined && outcome.status >= 200 && outcome.status <= 299;
  return {
    result,
    upstream: outcome,
    outcome: !result.isError ? 'ok' : answered ? 'tool_error' : 'upstream_error',
  };
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
