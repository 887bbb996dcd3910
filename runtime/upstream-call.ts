/**
 * Sends an UpstreamRequest and turns the answer into an MCP tool result. Bounded in time
 * (timeout) and in size (response cap); redirects are followed only within the same origin,
 * so neither an argument nor an upstream can move a credential to another host. Every text
 * that came from the upstream is redacted before it leaves.
 */
import { isPlainObject } from '../core/is-plain-object.js';
import { redirectLoop } from '../core/redirect-loop.js';
import { CallCancel, type CancelSignal } from './call-cancel.js';
import { bytesHoldSecret, noRedaction, type Redactor, redactValue } from './redact.js';
import type { UpstreamRequest } from './upstream-request.js';
import {
  ResponseTooLarge,
  type TransportRequest,
  type TransportResponse,
  type UpstreamTransport,
} from './upstream-transport.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
import { isJsonMediaType, isTextMediaType, mediaTypeEssence } from './media-type.js';

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType: string; blob: string } };

export interface ToolCallResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

export interface UpstreamCallOptions {
  transport: UpstreamTransport;
  timeoutMs: number;
  maxResponseBytes: number;
  redact: Redactor;
  /** Aborted when the MCP request is cancelled or the client goes away. */
  signal?: CancelSignal;
  /** Whether the tool declares an outputSchema (then a JSON object body is also structuredContent). */
  structured: boolean;
  /** Used in a binary resource's URI. */
  toolName: string;
}

export interface UpstreamOutcome {
  result: ToolCallResult;
  /** HTTP status, or undefined when no answer arrived. */
  status?: number;
  /** Why the call failed without an HTTP answer: timeout, network, too_large, cancelled. */
  failure?: 'timeout' | 'network' | 'too_large' | 'cancelled';
  /** Bytes of the answer's body, when one arrived. */
  bytes?: number;
}

const ERROR_EXCERPT_CHARS = 2000;
/** Stateless when not streaming, so one serves every call. */
const utf8 = new TextDecoder();
const MAX_REDIRECTS = 5;

export function toolError(text: string): ToolCallResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function mediaType(response: TransportResponse): string {
  return mediaTypeEssence(response.headers['content-type'] ?? '');
}

/** An upstream that names no type is read as text, as browsers sniff it. */
function isTextType(type: string): boolean {
  return type === '' || isTextMediaType(type);
}

/**
 * A text body as the client will see it. A JSON body is parsed and redacted value by value
 * (keys too), since `\uXXXX` or `\/` escapes can spell the secret in ways no list of
 * encodings covers; when the decoded value held a secret, the text is re-serialized from the
 * redacted value so that the escaped spelling is gone as well.
 */
function readText(
  bytes: Uint8Array,
  type: string,
  redact: Redactor,
  structured: boolean,
  charset: string | undefined,
): { text: string; json?: unknown; tooDeep?: true } {
  const raw = decodeBody(bytes, charset);
  // Without a secret, a body is parsed only when structuredContent may be built from it.
  const wanted = redact !== noRedaction || (structured && (isJsonMediaType(type) || type === ''));
  const first = raw.trimStart()[0];
  if (wanted && (isJsonMediaType(type) || first === '{' || first === '[' || first === '"')) {
    try {
      const parsed: unknown = JSON.parse(raw);
      // Nested deeper than any message the runtime accepts: walking, validating or serialising it
      // would overflow the stack (an HTTP 500). It goes on as text, and the caller says why.
      if (exceedsJsonDepth(parsed)) return { text: redact(raw), tooDeep: true };
      const safe = redact === noRedaction ? parsed : redactValue(redact, parsed);
      return { text: safe === parsed ? redact(raw) : JSON.stringify(safe), json: safe };
    } catch {
      // Not JSON, or nested too deep to walk: the text alone, redacted as text.
    }
  }
  return { text: redact(raw) };
}

function charsetOf(response: TransportResponse): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(response.headers['content-type'] ?? '')?.[1];
}

/**
 * The text as the upstream declared it (UTF-8 unless its charset, or a byte-order mark, says
 * otherwise): a UTF-16 body read as UTF-8 would reach the client as bytes, beyond the redactor's reach.
 */
function decodeBody(bytes: Uint8Array, charset: string | undefined): string {
  const label =
    bytes[0] === 0xfe && bytes[1] === 0xff
      ? 'utf-16be'
      : bytes[0] === 0xff && bytes[1] === 0xfe
        ? 'utf-16le'
        : charset;
  if (label === undefined || /^utf-?8$/i.test(label)) return utf8.decode(bytes);
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    // An encoding this runtime does not know: read as UTF-8, as before.
    return utf8.decode(bytes);
  }
}

/**
 * An upstream's 429/503 Retry-After (seconds, or an HTTP date) as a sentence for the client:
 * the model is told when to try again, in the upstream's own terms. Anything else is ignored.
 */
function retryHint(value: string | undefined): string {
  const raw = value?.trim();
  if (!raw) return '';
  if (/^\d{1,9}$/.test(raw)) return ` (the API asks to retry after ${Number(raw)} s)`;
  const when = Date.parse(raw);
  if (Number.isNaN(when)) return '';
  const seconds = Math.max(0, Math.ceil((when - Date.now()) / 1000));
  return ` (the API asks to retry after ${seconds} s, at ${new Date(when).toISOString()})`;
}

function withheld(bytes: Uint8Array, type: string): ToolCallResult {
  return toolError(
    `The upstream answer (${bytes.byteLength} bytes of ${type || 'unknown type'}) contains this server's credential; it is withheld.`,
  );
}

function excerpt(text: string): string {
  return text.length > ERROR_EXCERPT_CHARS ? `${text.slice(0, ERROR_EXCERPT_CHARS)}… (truncated)` : text;
}

/**
 * The runtime's redirect policy (core/redirect-loop.ts): only same-origin redirects are followed,
 * at most MAX_REDIRECTS, since the credential must never travel to another host; any other
 * redirect is the answer. 303, and 301/302 after a POST, become a GET without a body.
 */
function nextSameOrigin(
  response: TransportResponse,
  current: TransportRequest,
  hop: number,
  origin: () => string,
) {
  const location = response.headers.location;
  if (response.status < 300 || response.status > 399 || response.status === 304 || !location)
    return undefined;
  const next = new URL(location, current.url);
  if (next.origin !== origin() || hop >= MAX_REDIRECTS) return undefined;
  if (
    response.status === 303 ||
    ((response.status === 301 || response.status === 302) && current.method === 'POST')
  ) {
    const headers = { ...current.headers };
    delete headers['content-type'];
    return { method: 'GET', url: next.href, headers };
  }
  const moved: TransportRequest = { ...current, url: next.href };
  if (moved.method === 'GET' || moved.method === 'HEAD') delete moved.body;
  return moved;
}

async function sendFollowingSameOrigin(
  request: UpstreamRequest,
  options: UpstreamCallOptions,
  signal: CancelSignal,
): Promise<TransportResponse> {
  // Parsed only when a redirect needs it: most calls get their answer at once.
  let origin: string | undefined;
  const originOf = () => (origin ??= new URL(request.url).origin);
  // A shallow copy: `body` is dropped for GET/HEAD, and headers are only ever replaced, never changed.
  const first: TransportRequest = { ...request };
  if (first.method === 'GET' || first.method === 'HEAD') delete first.body;
  const { response } = await redirectLoop<TransportRequest, TransportResponse>(first, {
    send: (current) => options.transport(current, { signal, maxBytes: options.maxResponseBytes }),
    next: (response, current, hop) => nextSameOrigin(response, current, hop, originOf),
  });
  return response;
}

export async function callUpstream(
  request: UpstreamRequest,
  options: UpstreamCallOptions,
): Promise<UpstreamOutcome> {
  // One cancellation for both the timeout and the caller's: AbortControllers are costly to create.
  const cancel = new CallCancel();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    cancel.abort(new Error('timeout'));
  }, options.timeoutMs);
  const outer = options.signal;
  const onAbort = () => cancel.abort(new Error('cancelled'));
  outer?.addEventListener('abort', onAbort, { once: true });
  let response: TransportResponse;
  try {
    response = await sendFollowingSameOrigin(request, options, cancel);
  } catch (error) {
    if (error instanceof ResponseTooLarge) {
      return {
        failure: 'too_large',
        result: toolError(
          `Upstream response exceeds the ${options.maxResponseBytes}-byte limit; nothing returned.`,
        ),
      };
    }
    if (timedOut) {
      return {
        failure: 'timeout',
        result: toolError(
          `Upstream did not answer within ${options.timeoutMs} ms (${request.method} timed out).`,
        ),
      };
    }
    if (outer?.aborted) return { failure: 'cancelled', result: toolError('The call was cancelled.') };
    const e = error as { code?: string; cause?: { code?: string } };
    const code = e.code ?? e.cause?.code;
    return {
      failure: 'network',
      result: toolError(
        options.redact(
          `Upstream request failed${code ? ` (${code})` : ''}: could not reach ${new URL(request.url).origin}.`,
        ),
      ),
    };
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
  const bytes = response.body;
  // The media type is echoed in results (mimeType, messages): an upstream controls it too.
  const type = options.redact(mediaType(response));
  const status = response.status;
  if (status < 200 || status > 299) {
    const text = isTextType(type)
      ? readText(bytes, type, options.redact, false, charsetOf(response)).text
      : `(${bytes.byteLength} bytes of ${type})`;
    const reason = response.statusText ? ` ${options.redact(response.statusText)}` : '';
    const detail = text.trim() ? `: ${excerpt(text)}` : '';
    const retry = status === 429 || status === 503 ? retryHint(response.headers['retry-after']) : '';
    return {
      status,
      bytes: bytes.byteLength,
      result: toolError(`Upstream returned HTTP ${status}${reason}${retry}${detail}`),
    };
  }

  // An image or audio body goes out as base64 bytes, beyond text redaction, whatever its text-ness:
  // an SVG is XML text, yet it is returned as an image block, so it is searched as bytes too.
  const media = type.startsWith('image/') || type.startsWith('audio/');
  if ((media || !isTextType(type)) && bytesHoldSecret(options.redact, bytes))
    return { status, bytes: bytes.byteLength, result: withheld(bytes, type) };
  if (media) {
    const data = Buffer.from(bytes).toString('base64');
    const kind = type.startsWith('image/') ? 'image' : 'audio';
    return { status, bytes: bytes.byteLength, result: { content: [{ type: kind, data, mimeType: type }] } };
  }
  if (!isTextType(type)) {
    const blob = Buffer.from(bytes).toString('base64');
    return {
      status,
      bytes: bytes.byteLength,
      result: {
        content: [
          {
            type: 'resource',
            resource: { uri: `upstream://${options.toolName}/response`, mimeType: type, blob },
          },
        ],
      },
    };
  }
  const { text, json, tooDeep } = readText(
    bytes,
    type,
    options.redact,
    options.structured,
    charsetOf(response),
  );
  // A tool without an outputSchema promised no data: its text goes out as any text does.
  if (tooDeep && options.structured) {
    const note = `The upstream answer (HTTP ${status}) is JSON nested more than ${MAX_JSON_DEPTH} levels deep, deeper than this server passes on as data; it follows as text only.`;
    return {
      status,
      bytes: bytes.byteLength,
      result: {
        content: [
          { type: 'text', text: note },
          { type: 'text', text },
        ],
        isError: true,
      },
    };
  }
  if (text === '')
    return { status, bytes: 0, result: { content: [{ type: 'text', text: `HTTP ${status} (empty body)` }] } };
  const result: ToolCallResult = { content: [{ type: 'text', text }] };
  if (options.structured && (isJsonMediaType(type) || type === '') && isPlainObject(json))
    result.structuredContent = json;
  return { status, bytes: bytes.byteLength, result };
}
