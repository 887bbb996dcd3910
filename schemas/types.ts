// Generated from schemas/*.schema.json by `npm run schemas:types`. Do not edit by hand.
/* eslint-disable */

// config.schema.json
export type Source =
  | {
      kind: "openapi";
      /**
       * http(s) URL of the document, or a file path relative to this folder.
       */
      location: string;
      /**
       * Content directory, relative to this folder.
       */
      contentDir?: string;
      allowExternalRefs?: boolean;
    }
  | {
      kind: "git";
      /**
       * github, gitlab: those hosts; git: any smart-HTTP git server (read with isomorphic-git); raw: one file fetched through rawUrlTemplate (no content directories).
       */
      provider: "github" | "gitlab" | "git" | "raw";
      /**
       * owner/name (github) or a local/remote git URL.
       */
      repository?: string;
      instance?: string;
      project?: string;
      rawUrlTemplate?: string;
      branch: string;
      path: string;
      /**
       * Directory inside the repository holding Skills/ Prompts/ Widgets/ Resources/ Docs/ ('.' is the repository root).
       */
      contentDir?: string;
      /**
       * Id of the git connection (`svc git connections`, kept outside the folder) the repository is read through; its secrets never enter the folder.
       */
      connection?: string;
      /**
       * The commit the last import read (git providers; absent for raw).
       */
      commit?: string;
      allowExternalRefs?: boolean;
    }
  | {
      kind: "app_builder";
      appId: string;
      /**
       * live (the live version), main (version-test) or the id of an extra version served at /version-<id>/.
       */
      branch: string;
      /**
       * Custom Live domain: a host name (served over https), or an origin http(s)://host[:port]. Detected from /api/1.1/meta at init; edit to override.
       */
      customDomain?: string;
      /**
       * The platform's origin with {app} for the app id, when not https://{app}.bubbleapps.io (a dedicated cluster, a test stand-in).
       */
      platformOrigin?: string;
      /**
       * Ownership check: the slug of a page the app must publish (not a secret). `svc verify` probes it; `svc verify --reset` issues a new one.
       */
      verificationToken?: string;
      /**
       * Whether `svc verify` found the page. Import refuses until it is true.
       */
      verified?: boolean;
    }
  | {
      kind: "manual";
    };

/**
 * config.yaml of a server folder: identity, source, auth placement and base URL. Never a secret.
 */
export interface SvcConfig {
  schemaVersion: 1;
  server: {
    /**
     * Stable id, used in /mcp/{serverId} and the snapshot path.
     */
    id: string;
    name: string;
    published: boolean;
  };
  app: {
    name: string;
    description?: string;
    logoUrl?: string;
    website?: string;
    provider: "openapi" | "app_builder" | "git" | "manual";
  };
  source: Source;
  auth: Auth;
  /**
   * Each tool's path is appended to it. Empty only while a manual app has no base URL yet.
   */
  apiBaseUrl: string;
  /**
   * Short descriptions for every imported tool (svc init/import --compact); without it descriptions are kept whole. A tool can ask for it alone with `compact: true` in its file.
   */
  compact?: boolean;
  /**
   * How tools/list presents the enabled tools. all: every enabled tool is listed. search: search_tools and call_tool plus the pinned tools; a write found by search runs only after the person confirms. auto (the default when absent): search when the enabled tools would exceed 40 tools or 32 KB of tools/list, else all.
   */
  discovery?: "all" | "search" | "auto";
  /**
   * false: tools/list leaves every tool's outputSchema out (and results carry no structuredContent), for hosts or models that do better without them. Default true.
   */
  outputSchemas?: boolean;
  /**
   * How the diff report judges API changes (docs/diff-rules.md lists every rule).
   */
  diff?: {
    /**
     * A level per rule id, raising or lowering the default (breaking, warning, info), or off to drop the rule's findings. --fail-on reads the tuned levels.
     */
    rules?: {
      [k: string]: "breaking" | "warning" | "info" | "off";
    };
    /**
     * Days that must pass after an announced sunset (x-sunset) before removing the endpoint or parameter counts as expected, not breaking. Default 0.
     */
    sunsetGraceDays?: number;
  };
  /**
   * Rate limits on tool calls, counted per runtime replica (docs/operations.md). Past a limit the call is refused before the upstream, with the time to retry.
   */
  rateLimits?: {
    /**
     * Calls one caller (the authenticated subject, else the client address) may make across all tools: n per second (s), minute (m) or hour (h), e.g. 60/m.
     */
    perCaller?: string;
    /**
     * Calls of one tool across all callers, keyed by tool name (each must be a tool of this folder): n/s, n/m or n/h.
     */
    perTool?: {
      [k: string]: string;
    };
  };
  /**
   * Environment variables the runtime needs for this folder (names only).
   */
  requiredEnv: string[];
  /**
   * Headers of the MCP HTTP request sent upstream on every tool call (e.g. X-Tenant-Id). Authorization, Cookie, Host, Mcp-* and hop-by-hop headers can never be listed (svc validate refuses them).
   *
   * @maxItems 32
   */
  forwardHeaders?: string[];
  /**
   * The upstream's OAuth provider (user_oauth mode): the runtime sends each person there to sign in and calls the API with that person's token (docs/oauth.md). Without it a user_oauth folder refuses every call.
   */
  oauth?: {
    authorizeUrl: string;
    tokenUrl: string;
    scopes: string[];
    /**
     * The variable holding the OAuth client id (default SVC_OAUTH_CLIENT_ID); its name contains OAUTH, CLIENT_ID or CLIENT_SECRET.
     */
    clientIdEnv?: string;
    /**
     * The variable holding the OAuth client secret (default SVC_OAUTH_CLIENT_SECRET); its name contains OAUTH, CLIENT_ID or CLIENT_SECRET.
     */
    clientSecretEnv?: string;
  };
}
export interface Auth {
  /**
   * How the runtime authenticates upstream. basic: `Authorization: Basic` from SVC_UPSTREAM_USER and SVC_UPSTREAM_SECRET, or SVC_UPSTREAM_SECRET holding user:password.
   */
  mode: "none" | "api_key" | "bearer" | "basic" | "user_oauth";
  /**
   * Placement of the shared key (api_key mode only).
   */
  apiKey?: {
    in: "header" | "query";
    name: string;
  };
  /**
   * Whether a shared credential exists (its value lives only in SVC_UPSTREAM_SECRET, and SVC_UPSTREAM_USER for basic).
   */
  hasAuthSecret: boolean;
}

// doc.schema.json
/**
 * Frontmatter of Docs/<slug>.md or .mdx, served at docs://<slug>.
 */
export interface DocFrontmatter {
  title?: string;
  description?: string;
  sortOrder?: number;
  /**
   * Folder only. Imported items arrive disabled.
   */
  enabled?: boolean;
}

// endpoint.schema.json
/**
 * The normalized endpoint: the one intermediate model between an OpenAPI/Swagger document and tools. Every later stage (tools, diff, history) reads this, never the raw document. Schemas are JSON Schema 2020-12 with component schemas referenced as #/$defs/<name>.
 */
export interface Endpoint {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";
  path: string;
  operationId?: string;
  summary?: string;
  description?: string;
  tags: string[];
  deprecated: boolean;
  parameters: {
    name: string;
    in: "path" | "query" | "header" | "cookie";
    required: boolean;
    description?: string;
    deprecated?: boolean;
    schema: {} | boolean;
    style?: "form" | "spaceDelimited" | "pipeDelimited" | "deepObject" | "simple" | "label" | "matrix";
    explode?: boolean;
  }[];
  requestBody?: {
    required: boolean;
    contentType: string;
    description?: string;
    schema: {} | boolean;
    /**
     * Form and multipart bodies: how each top-level property is serialized (the OpenAPI Encoding Object; Swagger 2.0 formData collectionFormat), by property name.
     */
    encoding?: {
      [k: string]: {
        style?: "form" | "spaceDelimited" | "pipeDelimited" | "deepObject";
        explode?: boolean;
        contentType?: string;
      };
    };
  };
  /**
   * The success response (lowest 2xx, else default).
   */
  response?: {
    status: string;
    contentType?: string;
    description?: string;
    schema?: {} | boolean;
  };
  /**
   * Names of the security schemes that may authorize this endpoint (any one of the alternatives), sorted.
   */
  security: string[][];
  /**
   * What the diff reads beyond what tools need: every media type, every response status with headers and links, callbacks, security scopes and lifecycle metadata. Not part of the endpoint's fingerprint.
   */
  contract?: {
    /**
     * x-sunset: the date (ISO 8601) after which the operation may be removed.
     */
    sunset?: string;
    /**
     * x-stability-level, lower case (draft, alpha, beta, stable).
     */
    stability?: string;
    /**
     * x-sunset of parameters, by "in:name".
     */
    parameterSunsets?: {
      [k: string]: string;
    };
    /**
     * The effective security requirements with their scopes, in document order.
     */
    securityScopes?: {
      [k: string]: string[];
    }[];
    /**
     * Every request body media type and its schema.
     */
    requestMedia?: {
      [k: string]: {} | boolean;
    };
    /**
     * Every documented response by status (upper case, or default).
     */
    responses?: {
      [k: string]: {
        media?: {
          [k: string]: {} | boolean;
        };
        headers?: {
          [k: string]: {
            required: boolean;
            deprecated?: boolean;
            schema: {} | boolean;
          };
        };
        links?: string[];
      };
    };
    /**
     * Callbacks by name, each "METHOD expression" with the request body schema the API sends.
     */
    callbacks?: {
      [k: string]: {
        [k: string]: {} | boolean;
      };
    };
    /**
     * The discriminator of each component schema the endpoint uses that has one, by $defs name, and of each body whose root schema has one inline, by #request[type] or #response/<status>[type]: the property naming the variant and every value → variant ($defs name), implicit ones included.
     */
    discriminators?: {
      [k: string]: {
        propertyName: string;
        mapping: {
          [k: string]: string;
        };
      };
    };
    /**
     * Component schemas only the contract references (the others are in the endpoint's defs).
     */
    defs?: {
      [k: string]: {} | boolean;
    };
  };
  /**
   * OAuth scopes the endpoint's security requirements name for its oauth2 / openIdConnect schemes (every alternative, sorted, unique). Absent when none.
   */
  scopes?: string[];
  /**
   * Component schemas this endpoint references, transitively, by name.
   */
  defs?: {
    [k: string]: {} | boolean;
  };
}

// export.schema.json
/**
 * The programmatic export (spec 2.9): the server's config and every folder-relative path mapped to its contents. The runtime can also boot from it (the published snapshot has this shape).
 */
export interface SvcExport {
  server: SvcConfig;
  files: {
    [k: string]: string;
  };
}

// history.schema.json
/**
 * .svc/history/<seq>.json: one spec import, successful or failed (spec 2.8, 3.1). Records are written once and never rewritten.
 */
export interface HistoryRecord {
  schemaVersion: 1;
  /**
   * 1, 2, 3…: the order of imports in this folder.
   */
  seq: number;
  status: "complete" | "failed";
  /**
   * Pending → Processing → Complete or Failed, with the time of each step.
   */
  statusLog: {
    status: "pending" | "processing" | "complete" | "failed";
    at: string;
  }[];
  source: {
    location: string;
    contentDir?: string;
  };
  /**
   * What was read: the document's sha256 (its text, as fetched) and, for git sources, the commit.
   */
  revision?: {
    documentSha256?: string;
    gitCommit?: string;
  };
  changed: boolean;
  summary: string;
  error?: {
    code: string;
    message: string;
    step?: string;
  };
  /**
   * Complete imports: the content hashes of the normalized endpoints, found in .svc/endpoints/*.json.
   */
  endpoints?: string[];
  /**
   * Complete imports whose endpoints are exactly those of an earlier record: that record's seq (its `endpoints` list is not repeated, so a no-op import's record stays small).
   */
  endpointsOf?: number;
  /**
   * The diff report of this import (schemas/report.schema.json).
   */
  report?: ImportReport;
}

// prompt.schema.json
/**
 * Frontmatter of Prompts/<name>.md. The body is the template: {{arg}} is replaced by the argument's value.
 */
export interface PromptFrontmatter {
  title?: string;
  description?: string;
  arguments?: {
    name: string;
    description?: string;
    required?: boolean;
  }[];
  /**
   * URIs of resources embedded in the prompt's messages.
   */
  resources?: string[];
  sortOrder?: number;
  /**
   * Folder only. Imported items arrive disabled.
   */
  enabled?: boolean;
}

// report.schema.json
/**
 * What one import changed, against the previous import: per endpoint (with rule ids, breaking or not), per tool (added, removed, stale, customizations reset), per content item, and the warnings. Rendered as Markdown for a pull request.
 */
export interface ImportReport {
  schemaVersion: 1;
  /**
   * Whether any file of the folder (outside .svc/) changed.
   */
  changed: boolean;
  /**
   * One line, for people.
   */
  summary: string;
  source: {
    location: string;
    documentSha256?: string;
  };
  /**
   * The import this one is compared with; absent for a first import.
   */
  previous?: {
    seq: number;
    documentSha256?: string;
  };
  counts: {
    endpoints: {
      before: number;
      after: number;
      added: number;
      removed: number;
      changed: number;
      unchanged: number;
      /**
       * Endpoints with at least one breaking change (removed ones included).
       */
      breaking: number;
    };
    /**
     * Webhook changes (OpenAPI 3.1 `webhooks`, `x-webhooks`), counted apart from the endpoints; present only when a webhook changed.
     */
    webhooks?: {
      added: number;
      removed: number;
      changed: number;
      breaking: number;
    };
    tools: {
      total: number;
      enabled: number;
      added: number;
      removed: number;
      stale: number;
      customizationsReset: number;
    };
    content: {
      added: number;
      updated: number;
      skipped: number;
      removed: number;
    };
    warnings: number;
  };
  endpoints: EndpointChange[];
  tools: {
    added: ToolRef[];
    removed: ToolRef[];
    stale: ToolRef[];
    customizationsReset: CustomizationReset[];
    customizationsKept?: CustomizationReset[];
  };
  content: ContentChange[];
  warnings: ReportWarning[];
  /**
   * What tools/list costs a client after this import, and before it (docs/discovery.md): the discovery mode and the bytes of the list in that mode.
   */
  toolsList?: {
    before?: ToolsListCostRecord;
    after: ToolsListCostRecord;
  };
}
export interface EndpointChange {
  /**
   * "METHOD /path" (the path of the newer document).
   */
  key: string;
  method: string;
  path: string;
  operationId?: string;
  /**
   * First tag, else the first path segment: how the Markdown groups endpoints.
   */
  group: string;
  kind: "added" | "removed" | "changed";
  breaking: boolean;
  changes: ApiChange[];
  tool?: ToolRef;
  /**
   * What the import did to the folder's tool for this endpoint (`tool`): for a removed endpoint, removed or kept stale.
   */
  toolFate?: "added" | "updated" | "kept-stale" | "removed";
}
export interface ApiChange {
  /**
   * Stable rule id (see generator/diff/rules.ts).
   */
  id: string;
  level: "breaking" | "warning" | "info";
  text: string;
  /**
   * Where in the endpoint: a parameter, a body or response property path.
   */
  location?: string;
  /**
   * Stable across runs: rule id, endpoint and location.
   */
  fingerprint: string;
}
export interface ToolRef {
  key: string;
  name: string;
  endpoint?: string;
  enabled: boolean;
}
/**
 * Hand edits of one tool file that a re-import had to settle: reset (the new endpoint made them wrong, the generated value was taken) or kept (the API changed the same field; the user's value stays).
 */
export interface CustomizationReset {
  key: string;
  /**
   * The tool's name after the import.
   */
  name?: string;
  enabled?: boolean;
  endpoint: string;
  /**
   * Dotted paths in the tool file, e.g. inputSchema.properties.per_page.default.
   */
  fields: string[];
  changes: FieldChange[];
  /**
   * The first change's reason.
   */
  reason: string;
}
export interface FieldChange {
  field: string;
  /**
   * Reset: the user's value (absent: the user had deleted the field). Kept: the generated value before.
   */
  previous?: unknown;
  /**
   * The value the API now implies (absent: the field is gone).
   */
  current?: unknown;
  reason: string;
}
export interface ContentChange {
  kind: "skills" | "prompts" | "widgets" | "resources" | "docs";
  name: string;
  file: string;
  action: "added" | "updated" | "skipped" | "removed" | "kept";
  reason?: string;
}
export interface ReportWarning {
  id:
    | "enabled-tool-endpoint-removed"
    | "enabled-tool-breaking-change"
    | "enabled-tool-scopes-widened"
    | "enabled-tool-renamed"
    | "tool-kept-stale"
    | "customization-reset"
    | "content-skipped"
    | "content-kept";
  text: string;
  tool?: string;
  endpoint?: string;
  file?: string;
}
export interface ToolsListCostRecord {
  setting: "all" | "search" | "auto";
  mode: "all" | "search";
  reason?: string;
  served: number;
  pinned: number;
  bytes: number;
  allBytes: number;
}

// resource.schema.json
/**
 * Frontmatter of Resources/<name>.md. The body is the resource's content.
 */
export interface ResourceFrontmatter {
  title?: string;
  description?: string;
  /**
   * The resource's URI, or an RFC 6570 template when it has {variables}. Defaults to resource://<name>.
   */
  uriTemplate?: string;
  mimeType?: string;
  /**
   * Descriptions of the template's variables.
   */
  uriVariables?: {
    [k: string]: string;
  };
  sortOrder?: number;
  /**
   * Folder only. Imported items arrive disabled.
   */
  enabled?: boolean;
}

// skill.schema.json
/**
 * Frontmatter of Skills/<name>.md.
 */
export interface SkillFrontmatter {
  description: string;
  references?: string[];
  sortOrder?: number;
  /**
   * Folder only. Imported items arrive disabled.
   */
  enabled?: boolean;
}

// tool.schema.json
/**
 * Tools/<file>.yaml: one MCP tool and everything the runtime needs to call its endpoint. The file name stays stable when the tool is renamed.
 */
export interface SvcTool {
  /**
   * Exposed MCP tool name (editable).
   */
  name: string;
  title?: string;
  /**
   * Exposed description (editable).
   */
  description: string;
  /**
   * Default false: disabled tools are invisible and uncallable.
   */
  enabled: boolean;
  sortOrder: number;
  origin: "imported" | "manual";
  /**
   * In search mode (config.yaml discovery), list this tool directly beside search_tools and call_tool, and run it without asking the person first (a pinned tool was reviewed to be called directly).
   */
  pinned?: boolean;
  /**
   * Short descriptions for this tool: its description capped and each property's cut to the first sentence. Applied by the next svc import; without it descriptions are kept whole.
   */
  compact?: boolean;
  /**
   * Set by re-import when the endpoint disappeared from the source but the tool was kept.
   */
  stale?: boolean;
  endpoint: {
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";
    path: string;
    operationId?: string;
    deprecated?: boolean;
    /**
     * OAuth scopes the operation's security requirements name (oauth2 / openIdConnect schemes; sorted). A user_oauth runtime asks for those of every enabled tool.
     */
    scopes?: string[];
  };
  classification: "list" | "get" | "create" | "update" | "replace" | "delete" | "action";
  /**
   * MCP input schema (JSON Schema 2020-12). Shared component schemas live in $defs.
   */
  inputSchema: {
    type: "object";
    [k: string]: unknown;
  };
  /**
   * Where each input property goes in the upstream request.
   */
  locations: {
    [k: string]: Location;
  };
  /**
   * Request body encoding, when the endpoint takes a body.
   */
  body?: {
    contentType:
      | "application/json"
      | "application/x-www-form-urlencoded"
      | "multipart/form-data"
      | "text/plain"
      | "application/octet-stream";
    required: boolean;
    /**
     * Form and multipart bodies only: how a body property is serialized, by its name in the request (OpenAPI Encoding Object). Without an entry, scalars are sent as text, arrays as repeated fields and objects as JSON.
     */
    encoding?: {
      [k: string]: BodyEncoding;
    };
  };
  /**
   * JSON Schema of the success response, when it is a JSON object.
   */
  outputSchema?: {
    type: "object";
    [k: string]: unknown;
  };
  annotations: {
    title?: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  /**
   * Name of a widget in Widgets/ rendered for this tool's results.
   */
  widget?: string;
  /**
   * What the generator produced, so that a re-import can tell a customization from a stale value. The whole generated tool (its description too) is recorded in .svc/generated.json.
   */
  generated?: {
    name: string;
    /**
     * The generated description, as svc releases before .svc/generated.json wrote it (read as the record of it when present; no longer written).
     */
    description?: string;
    fingerprint: string;
  };
}
export interface Location {
  in: "path" | "query" | "header" | "cookie" | "body";
  /**
   * Name in the request (parameter name or body property name).
   */
  name: string;
  /**
   * body only: the property's value is the entire request body.
   */
  whole?: boolean;
  style?: "form" | "spaceDelimited" | "pipeDelimited" | "deepObject" | "simple" | "label" | "matrix";
  explode?: boolean;
}
export interface BodyEncoding {
  /**
   * form (default), spaceDelimited, pipeDelimited or deepObject (name[key]=value, nested; arrays as name[]=value).
   */
  style?: "form" | "spaceDelimited" | "pipeDelimited" | "deepObject";
  /**
   * Default true for form, false otherwise.
   */
  explode?: boolean;
  /**
   * The media type of the value: a JSON type sends it as JSON; in a multipart body it is the part's Content-Type.
   */
  contentType?: string;
}

// widget.schema.json
/**
 * Widgets/<name>.json, the sidecar of Widgets/<name>.html.
 */
export interface WidgetSidecar {
  description?: string;
  csp?: {
    connectDomains?: string[];
    resourceDomains?: string[];
    frameDomains?: string[];
    baseUriDomains?: string[];
  };
  prefersBorder?: boolean;
  sortOrder?: number;
  /**
   * Folder only. Imported items arrive disabled.
   */
  enabled?: boolean;
}
