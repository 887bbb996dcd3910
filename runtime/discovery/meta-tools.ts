/**
 * The two meta-tools of search mode (contracts/discovery.md). `search_tools` ranks the served
 * tools of this config version; `call_tool` calls one of them exactly as a direct call would
 * (runtime/tool-call.ts), but a tool that may change data runs only once the person has said
 * yes through the client: the call returns an `input_required` result holding a form-mode
 * elicitation (2026-07-28), which the SDK's legacy shim turns into `elicitation/create` for a
 * 2025-11-25 session. The yes is bound to the tool and its exact arguments through a sealed
 * `requestState`, so a client cannot confirm one call and run another.
 */
import { createHash } from 'node:crypto';
import {
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { canonicalJson } from '../../core/canonical-json.js';
import { isPlainObject } from '../../core/is-plain-object.js';
import { CALL_TOOL, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from '../../folder/discovery-mode.js';
import type { CompiledTool, LoadedConfig } from '../loaded-config.js';
import { callContextOf } from '../call-context.js';
import { callCompiledTool, type ToolCallDeps } from '../tool-call.js';
import { type ToolCallResult, toolError } from '../upstream-call.js';

const CONFIRM_KEY = 'confirm';

/** What the sealed requestState of a pending write holds: the tool and a digest of its arguments. */
interface PendingWrite {
  tool: string;
  args: string;
}

export function searchTools(
  loaded: LoadedConfig,
  rawArgs: Record<string, unknown> | undefined,
): ToolCallResult {
  const index = loaded.discovery.index;
  const args = rawArgs ?? {};
  const query = args.query;
  const limit = args.limit ?? SEARCH_LIMIT_DEFAULT;
  if (typeof query !== 'string' || query.trim() === '' || query.length > 500)
    return toolError(
      'Invalid arguments for tool search_tools:\n- query must be a non-empty string of at most 500 characters',
    );
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT_MAX)
    return toolError(
      `Invalid arguments for tool search_tools:\n- limit must be an integer from 1 to ${SEARCH_LIMIT_MAX}`,
    );
  const hits = index ? index.search(query, limit) : [];
  const tools = hits.map((hit) => {
    const listed = loaded.discovery.catalog.get(hit.name)!.listed;
    return {
      name: listed.name,
      ...(listed.title ? { title: listed.title } : {}),
      description: listed.description,
      inputSchema: listed.inputSchema,
      ...(Object.keys(listed.annotations).length > 0 ? { annotations: listed.annotations } : {}),
    };
  });
  const text =
    tools.length === 0
      ? `No tool matches "${query}". Try other words for what you want to do.`
      : `${tools.length} tool${tools.length === 1 ? '' : 's'} for "${query}", best first; call one with ${CALL_TOOL}:\n${JSON.stringify(tools)}`;
  return { content: [{ type: 'text', text }], structuredContent: { tools } };
}

function needsConfirmation(tool: CompiledTool): boolean {
  return tool.listed.annotations.readOnlyHint !== true && tool.item.tool.pinned !== true;
}

function canElicit(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  if (!elicitation) return false;
  // An empty object means form mode (2025-06-18); a client may also list its modes.
  return Object.keys(elicitation).length === 0 || elicitation.form !== undefined;
}

function digest(tool: string, args: Record<string, unknown>): PendingWrite {
  return { tool, args: createHash('sha256').update(canonicalJson(args)).digest('base64url') };
}

export async function callThroughSearch(
  loaded: LoadedConfig,
  deps: ToolCallDeps,
  rawArgs: Record<string, unknown> | undefined,
  ctx: ServerContext,
  clientCapabilities: ClientCapabilities | undefined,
): Promise<ToolCallResult | InputRequiredResult> {
  const args = rawArgs ?? {};
  const name = args.name;
  const toolArgs = args.arguments ?? {};
  if (typeof name !== 'string' || name === '')
    return toolError(
      'Invalid arguments for tool call_tool:\n- name must be the name of a tool from search_tools',
    );
  if (!isPlainObject(toolArgs))
    return toolError('Invalid arguments for tool call_tool:\n- arguments must be an object');
  const tool = loaded.discovery.catalog.get(name);
  // Unknown, disabled and stale tools answer alike: a disabled tool stays invisible.
  if (!tool)
    return toolError(`No tool named "${name}" can be called on this server. Find one with search_tools.`);
  if (!needsConfirmation(tool))
    return callCompiledTool(loaded, deps, tool, toolArgs, ctx.mcpReq.signal, callContextOf(ctx.http?.req));

  const pending = digest(name, toolArgs);
  const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
  const sealed = ctx.mcpReq.requestState<PendingWrite>();
  const sameCall = sealed !== undefined && sealed.tool === pending.tool && sealed.args === pending.args;
  if (answer.kind === 'elicit' && sameCall) {
    const yes = answer.action === 'accept' && answer.content?.[CONFIRM_KEY] === true;
    deps.logger.log('info', 'write_confirmation', { tool: name, confirmed: yes, action: answer.action });
    if (!yes)
      return toolError(
        `The person did not confirm ${name}: the API was not called. Ask them what they want before trying again.`,
      );
    return callCompiledTool(loaded, deps, tool, toolArgs, ctx.mcpReq.signal, callContextOf(ctx.http?.req));
  }
  if (!canElicit(clientCapabilities) || !deps.confirmations) {
    return toolError(
      `${name} changes data, and a tool found by search runs only after the person confirms it, which this client cannot ask. ` +
        `The API was not called. To allow it without asking, a maintainer of this server sets \`pinned: true\` in its tool file ` +
        `(it is then listed and called directly), or \`discovery: all\` in config.yaml.`,
    );
  }
  return inputRequired({
    inputRequests: {
      [CONFIRM_KEY]: inputRequired.elicit({
        message: confirmationMessage(tool, toolArgs),
        requestedSchema: {
          type: 'object',
          properties: {
            [CONFIRM_KEY]: { type: 'boolean', title: `Run ${name}?`, description: 'Yes runs it now.' },
          },
          required: [CONFIRM_KEY],
        },
      }),
    },
    requestState: await deps.confirmations.mint(pending, ctx),
  }) as InputRequiredResult;
}

function confirmationMessage(tool: CompiledTool, args: Record<string, unknown>): string {
  const { method, path } = tool.item.tool.endpoint;
  const shown = JSON.stringify(args);
  const argsText = shown.length > 1500 ? `${shown.slice(0, 1500)}…` : shown;
  const what = tool.listed.title ?? tool.listed.description.split('\n')[0]?.slice(0, 200) ?? tool.listed.name;
  return `Allow ${tool.listed.name} (${method} ${path}): ${what}\nArguments: ${argsText}`;
}
