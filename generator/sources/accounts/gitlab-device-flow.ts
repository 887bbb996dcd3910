/**
 * `svc git connect gitlab` without a browser on this machine: the OAuth 2.0 device authorization
 * grant (RFC 8628) as GitLab serves it. svc asks /oauth/authorize_device for a code, the user
 * opens the verification page anywhere and approves, svc polls /oauth/token until the grant
 * arrives. Only the refresh token is returned for keeping; the access token is not kept.
 */
import { SvcError } from '../../../core/svc-error.js';

export interface DeviceFlowOptions {
  instance: string;
  clientId: string;
  /** Default: read_repository read_api (spec 2.2: read the repository and list projects). */
  scope?: string;
  /** Told once where to go and which code to type. */
  onCode: (code: { userCode: string; verificationUri: string; verificationUriComplete?: string }) => void;
  /** Injectable for tests; default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
}

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export async function gitlabDeviceFlow(opts: DeviceFlowOptions): Promise<{ refreshToken: string }> {
  const base = opts.instance.replace(/\/+$/, '');
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const start = await post(`${base}/oauth/authorize_device`, {
    client_id: opts.clientId,
    scope: opts.scope ?? 'read_repository read_api',
  });
  if (!start.ok || typeof start.json.device_code !== 'string' || typeof start.json.user_code !== 'string') {
    throw new SvcError(
      'SOURCE_UNREACHABLE',
      `GitLab at ${base} did not start the device flow (${String(start.json.error ?? `HTTP ${start.status}`)}); is the application's client id right and is it a public (non-confidential) app?`,
      { place: { url: `${base}/oauth/authorize_device` } },
    );
  }
  const verificationUri = String(start.json.verification_uri ?? `${base}/oauth/device`);
  opts.onCode({
    userCode: start.json.user_code,
    verificationUri,
    ...(typeof start.json.verification_uri_complete === 'string'
      ? { verificationUriComplete: start.json.verification_uri_complete }
      : {}),
  });
  let interval = Number(start.json.interval ?? 5) * 1000;
  const deadline = Date.now() + Number(start.json.expires_in ?? 300) * 1000;
  while (Date.now() < deadline) {
    await sleep(Math.max(interval, 100));
    const poll = await post(`${base}/oauth/token`, {
      grant_type: DEVICE_GRANT,
      device_code: start.json.device_code,
      client_id: opts.clientId,
    });
    if (poll.ok && typeof poll.json.refresh_token === 'string')
      return { refreshToken: poll.json.refresh_token };
    const error = String(poll.json.error ?? `HTTP ${poll.status}`);
    if (error === 'authorization_pending') continue;
    if (error === 'slow_down') {
      interval += 5000;
      continue;
    }
    throw new SvcError('SOURCE_UNREACHABLE', `GitLab at ${base} ended the device flow: ${error}`, {
      place: { url: `${base}/oauth/token` },
    });
  }
  throw new SvcError('SOURCE_UNREACHABLE', `the device code for ${base} expired before it was approved`, {
    place: { url: `${base}/oauth/token` },
  });
}

async function post(
  url: string,
  form: Record<string, string>,
): Promise<{ ok: boolean; status: number; json: Record<string, unknown> }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(form),
    });
  } catch (error) {
    throw new SvcError('SOURCE_UNREACHABLE', `could not reach ${url}`, { place: { url }, cause: error });
  }
  const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  return { ok: response.ok, status: response.status, json };
}
