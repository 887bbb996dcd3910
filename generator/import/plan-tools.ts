/**
 * Planning, step 1: the document → endpoints → tools, and the config the import ends with
 * (a git source's commit, the API base URL from the document when config.yaml names none).
 */
import { SvcError } from '../../core/svc-error.js';
import type { FolderModel } from '../../folder/model.js';
import type { Endpoint, SvcConfig } from '../../schemas/types.js';
import { endpointMatchKey } from '../diff/endpoint-key.js';
import { toEndpoints, toWebhooks } from '../endpoints/index.js';
import { authWarning, declaredSchemes } from '../init/auth-suggestion.js';
import { defaultBaseUrl, parseDocument } from '../parse/index.js';
import { GENERATED_FILE } from '../history/index.js';
import {
  type BuildToolsOptions,
  buildTools,
  loadHtmlToMarkdown,
  looksLikeHtml,
  mayContainHtml,
} from '../tools/index.js';
import { asSvcError, StepFailure } from './failed-import.js';
import type { ImportTarget } from './import-target.js';
import type { PreviousFolder, SourceBundle } from './import-types.js';

export type Markdown = Awaited<ReturnType<typeof loadHtmlToMarkdown>>;

export interface PlannedTools {
  config: SvcConfig;
  /** The document's text as read. */
  text: string;
  /** Its SHA-256, when the source reader took it of the bytes it read. */
  textSha256?: string;
  endpoints: Endpoint[];
  /**
   * OpenAPI 3.1 webhooks, in the endpoints' shape: compared with the previous import's, never made
   * tools. A first import has nothing to compare them with and reads none (GitHub's x-webhooks
   * cost it 160 ms for nothing).
   */
  webhooks: Endpoint[];
  tools: ReturnType<typeof buildTools>;
  markdown?: Markdown;
  /** auth: none for a document that declares security schemes. */
  authNotice?: string;
  warnings: string[];
}

export async function planTools(
  target: ImportTarget,
  bundle: SourceBundle,
  previous: PreviousFolder | undefined,
): Promise<PlannedTools> {
  const config = withCommit(target.config, bundle.commit);
  let planned: PlannedTools;
  let baseUrl: string | undefined;
  try {
    const parsed = await parseDocument(bundle.document, {
      allowExternalRefs: target.allowExternalRefs,
      ...(bundle.externalRefs ? { externalFiles: bundle.externalRefs } : {}),
    });
    const endpoints = toEndpoints(parsed);
    const webhooks = previous ? toWebhooks(parsed) : [];
    const authNotice =
      config.auth.mode === 'none' ? authWarning(declaredSchemes(parsed.document, parsed.version)) : undefined;
    baseUrl = defaultBaseUrl(parsed, bundle.document.origin);
    // A folder without stored bases has its previous tools built again with the converter (plan-files.ts).
    const earlierNeedsConverter = previous !== undefined && previous.files[GENERATED_FILE] === undefined;
    const built = await toolsOf(
      endpoints,
      bundle.document.text,
      compactOptions(config, previous?.folder),
      earlierNeedsConverter,
    );
    planned = {
      config,
      text: bundle.document.text,
      ...(bundle.document.sha256 ? { textSha256: bundle.document.sha256 } : {}),
      endpoints,
      webhooks,
      ...built,
      ...(authNotice ? { authNotice } : {}),
    };
  } catch (error) {
    throw new StepFailure('tools', asSvcError(error));
  }
  if (config.apiBaseUrl) return planned;
  if (!baseUrl) {
    throw new StepFailure(
      'tools',
      new SvcError(
        'SPEC_INVALID',
        'the document names no server URL, so the API base URL is unknown; give --base-url',
        {
          place: { field: 'servers' },
        },
      ),
    );
  }
  return { ...planned, config: { ...config, apiBaseUrl: baseUrl } };
}

/** A git source records the commit it was read at. */
function withCommit(config: SvcConfig, commit: string | undefined): SvcConfig {
  const source = config.source;
  if (!commit || source.kind !== 'git' || source.commit === commit) return config;
  return { ...config, source: { ...source, commit } };
}

async function toolsOf(
  endpoints: Endpoint[],
  text: string,
  options: BuildToolsOptions,
  earlierNeedsConverter: boolean,
): Promise<Pick<PlannedTools, 'tools' | 'markdown' | 'warnings'>> {
  const mayHoldHtml = mayContainHtml(text);
  if (mayHoldHtml && !earlierNeedsConverter) {
    const plain = withoutHtml(endpoints, options);
    if (plain) return plain;
  }
  const warnings: string[] = [];
  // Descriptions kept as plain text because their HTML could not be converted, by text.
  const asText = new Map<string, unknown>();
  // The converter's libraries load only when the document may hold HTML descriptions.
  const markdown = mayHoldHtml
    ? await loadHtmlToMarkdown((html, error) => asText.set(html, error))
    : undefined;
  const tools = buildTools(endpoints, {
    ...options,
    ...(markdown ? { markdown } : {}),
    onWarning: (line) => warnings.push(line),
  });
  warnings.push(...textFallbackWarnings(asText));
  return { tools, ...(markdown ? { markdown } : {}), warnings };
}

const HTML_FOUND = Symbol('a description is HTML');

/**
 * The tools, when no text they are built from is HTML (GitHub's and Kubernetes' documents hold
 * `<p>` in examples only): built without loading the converter's libraries (~100 ms of module
 * loading), which would have handed every text back unchanged. Undefined as soon as one text is
 * HTML (Stripe's second): the caller starts again with the converter.
 */
function withoutHtml(
  endpoints: Endpoint[],
  options: BuildToolsOptions,
): Pick<PlannedTools, 'tools' | 'warnings'> | undefined {
  const warnings: string[] = [];
  const probe = (text: string) => {
    if (looksLikeHtml(text)) throw HTML_FOUND;
    return text;
  };
  try {
    const tools = buildTools(endpoints, {
      ...options,
      markdown: probe,
      onWarning: (line) => warnings.push(line),
    });
    return { tools, warnings };
  } catch (error) {
    if (error === HTML_FOUND) return undefined;
    throw error;
  }
}

/**
 * Short descriptions when config.yaml asks for them for every tool, or a tool's file for itself
 * (matched by endpoint, as the merge matches tools).
 */
export function compactOptions(config: SvcConfig, previous: FolderModel | undefined): BuildToolsOptions {
  const own = new Set(
    (previous?.tools ?? [])
      .filter((t) => t.tool.origin === 'imported' && t.tool.compact === true)
      .map((t) => endpointMatchKey(t.tool.endpoint.method, t.tool.endpoint.path)),
  );
  return {
    ...(config.compact ? { compact: true } : {}),
    ...(own.size > 0 ? { compactFor: (e: Endpoint) => own.has(endpointMatchKey(e.method, e.path)) } : {}),
  };
}

const MAX_TEXT_FALLBACKS_NAMED = 5;

/** One warning per description kept as text (the first few named by their opening words). */
function textFallbackWarnings(asText: ReadonlyMap<string, unknown>): string[] {
  const out: string[] = [];
  for (const [html, error] of [...asText].slice(0, MAX_TEXT_FALLBACKS_NAMED)) {
    const opening = html.replace(/\s+/g, ' ').slice(0, 60);
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    out.push(
      `a description could not be converted from HTML to Markdown (${why}); it is kept as plain text: "${opening}${html.length > 60 ? '…' : ''}"`,
    );
  }
  if (asText.size > MAX_TEXT_FALLBACKS_NAMED)
    out.push(
      `${asText.size - MAX_TEXT_FALLBACKS_NAMED} more descriptions were kept as plain text for the same reason`,
    );
  return out;
}
