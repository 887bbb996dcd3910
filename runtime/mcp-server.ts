/**
 * Builds the MCP server object for one served config version. Everything heavy (lists,
 * maps, validators) was built once in LoadedConfig, so constructing a Server here is a
 * handful of closures: cheap enough for one per stateless request. Raw JSON Schemas go
 * straight to the wire (low-level Server, no Zod).
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type GetPromptResult,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
  Server,
} from '@modelcontextprotocol/server';
import { CALL_TOOL, SEARCH_TOOLS } from '../folder/discovery-mode.js';
import { callContextOf } from './call-context.js';
import { callThroughSearch, searchTools } from './discovery/meta-tools.js';
import { type LoadedConfig, type ResourceContents, substitute } from './loaded-config.js';
import { callTool, type ToolCallDeps } from './tool-call.js';

function readResource(loaded: LoadedConfig, uri: string): ResourceContents | undefined {
  const fixed = loaded.resources.get(uri);
  if (fixed) return fixed.contents;
  for (const t of loaded.templates) {
    const vars = t.template.match(uri);
    if (!vars) continue;
    const values: Record<string, string> = {};
    for (const [k, v] of Object.entries(vars)) values[k] = Array.isArray(v) ? v.join(',') : String(v);
    const mimeType = t.listed.mimeType;
    if (t.binary) return { uri, mimeType, blob: t.body.replace(/\s+/g, '') };
    return { uri, mimeType, text: substitute(t.body, values) };
  }
  return undefined;
}

function getPrompt(
  loaded: LoadedConfig,
  name: string,
  rawArgs: Record<string, string> | undefined,
): GetPromptResult {
  const prompt = loaded.prompts.get(name);
  if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`);
  const args = rawArgs ?? {};
  const missing = prompt.listed.arguments.filter(
    (a) => a.required && (args[a.name] === undefined || args[a.name] === ''),
  );
  if (missing.length > 0) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Prompt ${name}: missing required argument(s): ${missing.map((a) => a.name).join(', ')}`,
    );
  }
  const messages: GetPromptResult['messages'] = [];
  for (const template of prompt.resources) {
    const uri = substitute(template, args);
    const contents = readResource(loaded, uri);
    if (!contents)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name}: unknown resource ${uri}`);
    if (contents.blob !== undefined && contents.mimeType.startsWith('image/')) {
      // An image resource is embedded as image content, which every prompt-aware host renders.
      messages.push({
        role: 'user',
        content: { type: 'image', data: contents.blob, mimeType: contents.mimeType },
      });
      continue;
    }
    const { _meta: _ignored, ...resource } = contents;
    messages.push({ role: 'user', content: { type: 'resource', resource: resource as never } });
  }
  const text = substitute(prompt.body, args).trim();
  if (text !== '' || messages.length === 0) messages.push({ role: 'user', content: { type: 'text', text } });
  const result: GetPromptResult = { messages };
  if (prompt.listed.description) result.description = prompt.listed.description;
  return result;
}

/**
 * serverInfo with the config's commit as semver build metadata (`0.1.0+3c33ace1f2b4`, or
 * `0.1.0+sha256.<digest>` without a known commit): what answered, in every client's
 * getServerVersion(), as the Svc-Config-Commit header says it over HTTP.
 */
function versionedInfo(loaded: LoadedConfig): LoadedConfig['serverInfo'] {
  const build = loaded.commit ? loaded.commit.slice(0, 12) : `sha256.${loaded.digest.slice(0, 12)}`;
  return { ...loaded.serverInfo, version: `${loaded.serverInfo.version}+${build}` };
}

export function buildMcpServer(loaded: LoadedConfig, deps: ToolCallDeps): Server {
  const server = new Server(versionedInfo(loaded), {
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
      completions: {},
      logging: {},
    },
    ...(loaded.instructions ? { instructions: loaded.instructions } : {}),
    // A write found by search waits for the person's yes; its sealed state comes back with the answer.
    ...(deps.confirmations ? { requestState: { verify: deps.confirmations.verify } } : {}),
  });
  server.setRequestHandler('tools/list', () => ({ tools: loaded.toolList as never }));
  server.setRequestHandler('tools/call', (request, ctx) => {
    const { name, arguments: args } = request.params;
    if (loaded.discovery.mode === 'search') {
      if (name === SEARCH_TOOLS) return searchTools(loaded, args) as never;
      if (name === CALL_TOOL) {
        // 2026-07-28 requests carry the client's capabilities; a 2025 session declared them at initialize.
        const modern = ctx.mcpReq._meta?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
        return callThroughSearch(loaded, deps, args, ctx, modern ?? server.getClientCapabilities()) as never;
      }
    }
    return callTool(loaded, deps, name, args, ctx.mcpReq.signal, callContextOf(ctx.http?.req)) as never;
  });
  server.setRequestHandler('prompts/list', () => ({ prompts: loaded.promptList as never }));
  server.setRequestHandler('prompts/get', (request) =>
    getPrompt(loaded, request.params.name, request.params.arguments),
  );
  server.setRequestHandler('resources/list', () => ({ resources: loaded.resourceList as never }));
  server.setRequestHandler('resources/templates/list', () => ({
    resourceTemplates: loaded.templateList as never,
  }));
  server.setRequestHandler('resources/read', (request): ReadResourceResult => {
    const contents = readResource(loaded, request.params.uri);
    if (!contents) throw new ResourceNotFoundError(request.params.uri);
    return { contents: [contents as never] };
  });
  // Resources of a folder never change within a version; subscribing is accepted so clients can listen.
  server.setRequestHandler('resources/subscribe', () => ({}));
  server.setRequestHandler('resources/unsubscribe', () => ({}));
  server.setRequestHandler('completion/complete', () => ({ completion: { values: [], hasMore: false } }));
  return server;
}
