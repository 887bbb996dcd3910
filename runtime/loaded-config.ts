/**
 * One immutable, served config version: the folder model compiled into everything a request
 * needs, built ONCE per version so no request pays for it — the tools/list, prompts/list and
 * resources/list results, lookup maps, and (lazily, then cached) one Ajv validator per tool.
 * Only enabled items make it in: a disabled item is invisible and unreachable, and so is a
 * stale tool (its endpoint is gone from the source) even when enabled.
 */
import { UriTemplate } from '@modelcontextprotocol/server';
import type { FolderModel, WidgetItem } from '../folder/model.js';
import { serverTitle } from '../folder/server-title.js';
import { type ListedTool, widgetUri } from '../folder/listed-tool.js';
import { folderDigest } from './sync/snapshot-folder.js';
import {
  type CompiledTool,
  compileToolCatalog,
  type Discovery,
  type SchemaCompiler,
  schemaValidator,
} from './tool-catalog.js';
import { isTextMediaType, mediaTypeEssence } from './media-type.js';

export const WIDGET_MIME = 'text/html;profile=mcp-app';

export type { ListedTool } from '../folder/listed-tool.js';
export type { CompiledTool, Discovery, SchemaCompiler } from './tool-catalog.js';

export interface ResourceContents {
  uri: string;
  mimeType: string;
  text?: string;
  blob?: string;
  _meta?: Record<string, unknown>;
}

export interface ListedResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
  _meta?: Record<string, unknown>;
}

export interface StaticResource {
  listed: ListedResource;
  contents: ResourceContents;
}

export interface ListedTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
}

export interface TemplateResource {
  listed: ListedTemplate;
  template: UriTemplate;
  body: string;
  binary: boolean;
}

export interface ListedPrompt {
  name: string;
  title?: string;
  description: string;
  arguments: { name: string; description?: string; required?: boolean }[];
}

export interface CompiledPrompt {
  listed: ListedPrompt;
  body: string;
  resources: string[];
}

export interface LoadedConfig {
  /** Monotonic version number assigned by the ConfigStore (1 = the boot config); differs between replicas. */
  version: number;
  /**
   * Content digest of the folder (sha256 hex): the same on every replica serving the same folder.
   * Computed on first use (tens of ms for a thousand tools), then kept.
   */
  readonly digest: string;
  /** The git commit the folder was read at, when known (a clean checkout, or a control snapshot). */
  commit?: string;
  folder: FolderModel;
  serverId: string;
  serverInfo: { name: string; title?: string; version: string; description?: string; websiteUrl?: string };
  instructions?: string;
  /** The tools a client may call by name: every served tool, or in search mode the pinned ones. */
  tools: ReadonlyMap<string, CompiledTool>;
  /** What tools/list returns: the served tools, or in search mode the meta-tools and the pinned ones. */
  toolList: readonly ListedTool[];
  discovery: Discovery;
  prompts: ReadonlyMap<string, CompiledPrompt>;
  promptList: readonly ListedPrompt[];
  resources: ReadonlyMap<string, StaticResource>;
  resourceList: readonly ListedResource[];
  templates: readonly TemplateResource[];
  templateList: readonly ListedTemplate[];
  /** user_oauth without an `oauth` block: calls are refused (fail closed). */
  callsRefused?: string;
  /** user_oauth with an `oauth` block: each call carries the end user's upstream token (docs/oauth.md). */
  userOAuth?: boolean;
  /** config.yaml forwardHeaders, lower-cased: headers of the MCP request sent upstream. */
  forwardHeaders?: readonly string[];
  /** The folder needs SVC_UPSTREAM_SECRET (api_key / bearer / basic with hasAuthSecret). */
  needsSecret: boolean;
}

export const RUNTIME_VERSION = '0.1.0';

function widgetMeta(widget: WidgetItem): Record<string, unknown> {
  const csp = widget.sidecar.csp ?? {};
  const ui: Record<string, unknown> = {
    csp: {
      connectDomains: csp.connectDomains ?? [],
      resourceDomains: csp.resourceDomains ?? [],
      ...(csp.frameDomains ? { frameDomains: csp.frameDomains } : {}),
      ...(csp.baseUriDomains ? { baseUriDomains: csp.baseUriDomains } : {}),
    },
  };
  if (widget.sidecar.prefersBorder !== undefined) ui.prefersBorder = widget.sidecar.prefersBorder;
  const meta: Record<string, unknown> = {
    ui,
    'openai/widgetCSP': {
      connect_domains: csp.connectDomains ?? [],
      resource_domains: csp.resourceDomains ?? [],
      ...(csp.frameDomains ? { frame_domains: csp.frameDomains } : {}),
    },
  };
  if (widget.sidecar.description) meta['openai/widgetDescription'] = widget.sidecar.description;
  if (widget.sidecar.prefersBorder !== undefined)
    meta['openai/widgetPrefersBorder'] = widget.sidecar.prefersBorder;
  return meta;
}

function yamlScalar(text: string): string {
  return JSON.stringify(text);
}

function skillDocument(
  name: string,
  description: string,
  body: string,
  references: string[] | undefined,
): string {
  const refs = references && references.length > 0 ? references : undefined;
  const head = [
    '---',
    `name: ${yamlScalar(name)}`,
    `description: ${yamlScalar(description)}`,
    '---',
    '',
  ].join('\n');
  const tail = refs ? `\n\n## References\n\n${refs.map((r) => `- ${r}`).join('\n')}\n` : '';
  return `${head}${body}${tail}`;
}

/**
 * The resources a version serves: Resources/ (static, or templates when the URI has variables),
 * Docs/ pages, skills and enabled widgets, first of each URI only.
 */
function compileResources(
  folder: FolderModel,
  serverId: string,
  enabledWidgets: ReadonlyMap<string, WidgetItem>,
): { resources: Map<string, StaticResource>; resourceList: ListedResource[]; templates: TemplateResource[] } {
  const resources = new Map<string, StaticResource>();
  const resourceList: ListedResource[] = [];
  const addResource = (r: StaticResource) => {
    if (resources.has(r.listed.uri)) return;
    resources.set(r.listed.uri, r);
    resourceList.push(r.listed);
  };
  const templates: TemplateResource[] = [];
  for (const r of folder.resources) {
    const fm = r.frontmatter;
    if (fm.enabled !== true) continue;
    const uri = fm.uriTemplate ?? `resource://${r.name}`;
    const mimeType = fm.mimeType ?? 'text/markdown';
    const binary = !isTextMediaType(mediaTypeEssence(mimeType));
    const base = {
      name: r.name,
      mimeType,
      ...(fm.title ? { title: fm.title } : {}),
      ...(fm.description ? { description: fm.description } : {}),
    };
    if (UriTemplate.isTemplate(uri)) {
      templates.push({
        listed: { ...base, uriTemplate: uri },
        template: new UriTemplate(uri),
        body: r.body,
        binary,
      });
    } else {
      // A non-text mimeType means the body holds the bytes as base64 (the only way to keep them in a .md file).
      const contents: ResourceContents = binary
        ? { uri, mimeType, blob: r.body.replace(/\s+/g, '') }
        : { uri, mimeType, text: r.body };
      addResource({ listed: { ...base, uri }, contents });
    }
  }
  for (const d of folder.docs) {
    if (d.frontmatter.enabled !== true) continue;
    const uri = `docs://${d.name}`;
    const listed: ListedResource = { uri, name: d.name, title: d.title, mimeType: 'text/markdown' };
    if (d.frontmatter.description) listed.description = d.frontmatter.description;
    addResource({ listed, contents: { uri, mimeType: 'text/markdown', text: d.body } });
  }
  for (const s of folder.skills) {
    const fm = s.frontmatter;
    if (fm.enabled !== true) continue;
    const uri = `skill://${s.name}/SKILL.md`;
    addResource({
      listed: { uri, name: s.name, description: fm.description, mimeType: 'text/markdown' },
      contents: {
        uri,
        mimeType: 'text/markdown',
        text: skillDocument(s.name, fm.description, s.body, fm.references),
      },
    });
  }
  for (const w of enabledWidgets.values()) {
    const uri = widgetUri(serverId, w.name);
    const meta = widgetMeta(w);
    const listed: ListedResource = { uri, name: w.name, mimeType: WIDGET_MIME, _meta: meta };
    if (w.sidecar.description) listed.description = w.sidecar.description;
    addResource({ listed, contents: { uri, mimeType: WIDGET_MIME, text: w.html, _meta: meta } });
  }
  return { resources, resourceList, templates };
}

/**
 * Turns a tool's input or output schema into its validator, called once per schema on first use.
 * The default compiles with Ajv; a Workers bundle (runtime/workers/) passes its precompiled ones.
 */
/** Compiles a folder model into a served config. Throws nothing: unusable items are left out. */
export function compileConfig(
  folder: FolderModel,
  version: number,
  compileSchema: SchemaCompiler = schemaValidator,
): LoadedConfig {
  let digest: string | undefined;
  const { config } = folder;
  const serverId = config.server.id;

  const enabledWidgets = new Map<string, WidgetItem>();
  for (const w of folder.widgets) if (w.sidecar.enabled === true) enabledWidgets.set(w.name, w);
  const { discovery, tools, toolList } = compileToolCatalog(folder, { compileSchema });

  const prompts = new Map<string, CompiledPrompt>();
  const promptList: ListedPrompt[] = [];
  for (const p of folder.prompts) {
    const fm = p.frontmatter;
    if (fm.enabled !== true) continue;
    const listed: ListedPrompt = {
      name: p.name,
      description: fm.description || fm.title || p.name,
      arguments: (fm.arguments ?? []).map((a) => ({
        name: a.name,
        ...(a.description ? { description: a.description } : {}),
        required: a.required === true,
      })),
    };
    if (fm.title) listed.title = fm.title;
    prompts.set(p.name, { listed, body: p.body, resources: fm.resources ?? [] });
    promptList.push(listed);
  }

  const { resources, resourceList, templates } = compileResources(folder, serverId, enabledWidgets);

  const skillLines = folder.skills
    .filter((s) => s.frontmatter.enabled === true)
    .map((s) => `- skill://${s.name}/SKILL.md — ${s.frontmatter.description}`);
  const instructionParts = [
    config.app.description ?? '',
    skillLines.length ? `Skills:\n${skillLines.join('\n')}` : '',
  ]
    .map((p) => p.trim())
    .filter(Boolean);

  const auth = config.auth;
  const loaded: LoadedConfig = {
    version,
    get digest() {
      digest ??= folderDigest(folder);
      return digest;
    },
    folder,
    serverId,
    serverInfo: {
      name: serverId,
      // Clients display the title: the app's name, not "Default" (a branch keeps its name beside it).
      title: serverTitle(config),
      version: RUNTIME_VERSION,
      ...(config.app.description ? { description: config.app.description } : {}),
      ...(config.app.website ? { websiteUrl: config.app.website } : {}),
    },
    tools,
    toolList,
    discovery,
    prompts,
    promptList,
    resources,
    resourceList,
    templates,
    templateList: templates.map((t) => t.listed),
    needsSecret:
      (auth.mode === 'api_key' || auth.mode === 'bearer' || auth.mode === 'basic') && auth.hasAuthSecret,
  };
  if (instructionParts.length > 0) loaded.instructions = instructionParts.join('\n\n');
  if (auth.mode === 'user_oauth') {
    if (config.oauth) loaded.userOAuth = true;
    else
      loaded.callsRefused =
        'This server uses user_oauth authentication but config.yaml has no oauth block (authorizeUrl, tokenUrl, scopes): tool calls are refused until the provider is configured.';
  }
  if (config.forwardHeaders && config.forwardHeaders.length > 0) {
    loaded.forwardHeaders = config.forwardHeaders.map((h) => h.toLowerCase());
  }
  return loaded;
}

/** Replaces {{name}} with the argument's value (unknown names stay empty). */
export function substitute(body: string, args: Record<string, string>): string {
  return body.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}/g, (_m, name: string) => args[name] ?? '');
}
