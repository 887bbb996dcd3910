/**
 * The CLI's client of the control service (docs/control-service.md): where the service is
 * (`--control <url>` or SVC_CONTROL_URL), the workspace token (SVC_TOKEN, only ever sent in the
 * Authorization header), and one JSON request at a time. Every refusal becomes an SvcError
 * carrying the service's own message and the URL asked, never the token.
 */
import { SvcError } from '../core/svc-error.js';
import type { CliIo } from '../core/command.js';

export interface ControlClient {
  /** The service's base URL, as shown in messages. */
  readonly url: string;
  /** GET or POST `path`; resolves with the parsed JSON body of a 2xx answer. */
  request(method: 'GET' | 'POST', path: string): Promise<unknown>;
}

/** The client for `svc <command> --remote`, from the flag and the environment. */
export function controlClientFrom(command: string, flag: string | undefined, io: CliIo): ControlClient {
  const given = flag ?? io.env.SVC_CONTROL_URL;
  if (!given) {
    throw new SvcError(
      'USAGE',
      `svc ${command} --remote: say where the control service is, with --control <url> or SVC_CONTROL_URL`,
    );
  }
  let base: URL;
  try {
    base = new URL(given);
  } catch {
    throw new SvcError('USAGE', `svc ${command}: the control service URL is not a URL`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new SvcError('USAGE', `svc ${command}: the control service URL must be http(s)`);
  }
  // Credentials in the URL would end up in messages; the token goes in SVC_TOKEN.
  if (base.username || base.password) {
    throw new SvcError(
      'USAGE',
      `svc ${command}: the control service URL must not carry credentials; put the workspace token in SVC_TOKEN`,
    );
  }
  const token = io.env.SVC_TOKEN?.trim();
  if (!token) {
    throw new SvcError(
      'USAGE',
      `svc ${command} --remote: set SVC_TOKEN to a workspace token (svc_pat_…; \`svc control token workspace\` makes one)`,
    );
  }
  return createControlClient(base.href.replace(/\/+$/, ''), token);
}

export function createControlClient(url: string, token: string): ControlClient {
  return {
    url,
    async request(method, path) {
      const target = `${url}${path}`;
      let response: Response;
      try {
        response = await fetch(target, {
          method,
          headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        });
      } catch (error) {
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
        const reason = cause instanceof Error ? cause.message : String(cause);
        throw new SvcError('CONTROL_UNREACHABLE', `cannot reach the control service: ${reason}`, {
          place: { url: target },
        });
      }
      const text = await response.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      if (response.ok) {
        if (body === undefined) {
          throw new SvcError(
            'CONTROL_REFUSED',
            `the control service answered ${response.status} without JSON`,
            {
              place: { url: target },
            },
          );
        }
        return body;
      }
      throw refusal(response.status, body, target);
    },
  };
}

/** An answer of the service other than 2xx; `status` is its HTTP status. */
export class ControlRefusal extends SvcError {
  constructor(
    readonly status: number,
    code: 'CONTROL_REFUSED' | 'NOT_PUBLISHED',
    message: string,
    url: string,
  ) {
    super(code, message, { place: { url } });
  }
}

/**
 * Whether a failed request may succeed when asked again unchanged: the service is not answering
 * (restarting, a replica going away) or a proxy in front says it is unavailable.
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof ControlRefusal)
    return error.status === 502 || error.status === 503 || error.status === 504;
  return error instanceof SvcError && error.code === 'CONTROL_UNREACHABLE';
}

/** The service's `{error: {code, message}}` as an SvcError, with a hint for the usual causes. */
function refusal(status: number, body: unknown, url: string): ControlRefusal {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  const code = typeof error?.code === 'string' ? error.code : undefined;
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${status}`;
  const hint =
    status === 401
      ? ' (is SVC_TOKEN a workspace token of this service?)'
      : code === 'NOT_FOUND' && /no such route/.test(message)
        ? ' (is this a control service, and as new as this CLI?)'
        : '';
  return new ControlRefusal(
    status,
    code === 'NOT_PUBLISHED' ? 'NOT_PUBLISHED' : 'CONTROL_REFUSED',
    `the control service answered ${status}${code ? ` ${code}` : ''}: ${message}${hint}`,
    url,
  );
}
