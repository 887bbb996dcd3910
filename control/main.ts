/**
 * The control service's container entry (the Dockerfile's `control` target): environment →
 * startControl; prints the listening URL; SIGTERM/SIGINT → graceful close. Exit codes as the
 * runtime's: 0 after a clean shutdown, 78 (EX_CONFIG) for a wrong environment, 1 otherwise.
 *
 * SVC_CONTROL_PORT (3100), SVC_CONTROL_HOST (127.0.0.1), SVC_DATA_DIR (the image sets /data; else
 * $XDG_STATE_HOME/svc/control or ~/.local/state/svc/control),
 * SVC_DATABASE_URL (postgres://…), SVC_CONTROL_KEY, SVC_GIT_TOKEN, SVC_GIT_TOKEN_HOSTS (the
 * comma-separated hosts SVC_GIT_TOKEN may go to), SVC_CONTROL_ALLOW_PRIVATE (1: repository and
 * source URLs may reach private addresses), SVC_CONTROL_KEEP_JOBS (200),
 * SVC_CONTROL_TRUST_PROXY (1: trust X-Forwarded-Proto from the proxy in front), SVC_METRICS (0: no
 * GET /metrics), SVC_METRICS_TOKEN (bearer token GET /metrics requires), SVC_PROMETHEUS_URL (the
 * Prometheus scraping the runtimes: the servers page shows calls, errors, p95 per server).
 *
 * With arguments it is `svc control <arguments>` (the image has no other CLI), e.g.
 * `node control.mjs token workspace --name admin` prints a workspace token.
 */
import { isSvcError, SvcError } from '../core/svc-error.js';
import { parseAllowPrivate, parseHostList } from './control-env.js';
import { defaultControlDataDir } from './data-dir.js';
import { parseKeepJobs } from './job-retention.js';
import { parseTrustProxy } from './tokens.js';
import { startControl } from './start-control.js';

async function main(): Promise<void> {
  const env = process.env;
  if (process.argv.length > 2) {
    const { controlCommand } = await import('./control-command.js');
    const code = await controlCommand.run(process.argv.slice(2), {
      stdout: (t) => process.stdout.write(t),
      stderr: (t) => process.stderr.write(t),
      cwd: process.cwd(),
      env,
    });
    process.exit(code);
  }
  let running: Awaited<ReturnType<typeof startControl>>;
  try {
    const portText = env.SVC_CONTROL_PORT?.trim() || '3100';
    if (!/^\d{1,5}$/.test(portText)) {
      throw new SvcError('USAGE', `SVC_CONTROL_PORT must be a number, not "${portText}"`, {
        place: { field: 'SVC_CONTROL_PORT' },
      });
    }
    running = await startControl({
      port: Number(portText),
      host: env.SVC_CONTROL_HOST?.trim() || '127.0.0.1',
      dataDir: defaultControlDataDir(env),
      ...(env.SVC_DATABASE_URL?.trim() ? { databaseUrl: env.SVC_DATABASE_URL.trim() } : {}),
      ...(env.SVC_CONTROL_KEY?.trim() ? { controlKey: env.SVC_CONTROL_KEY.trim() } : {}),
      ...(env.SVC_GIT_TOKEN?.trim() ? { gitToken: env.SVC_GIT_TOKEN.trim() } : {}),
      gitTokenHosts: parseHostList(env.SVC_GIT_TOKEN_HOSTS),
      allowPrivateAddresses: parseAllowPrivate(env.SVC_CONTROL_ALLOW_PRIVATE),
      keepJobs: parseKeepJobs(env.SVC_CONTROL_KEEP_JOBS),
      trustProxy: parseTrustProxy(env.SVC_CONTROL_TRUST_PROXY),
      ...(env.SVC_METRICS_TOKEN?.trim() ? { metricsToken: env.SVC_METRICS_TOKEN.trim() } : {}),
      metrics: env.SVC_METRICS?.trim() !== '0',
      ...(env.SVC_PROMETHEUS_URL?.trim() ? { prometheusUrl: env.SVC_PROMETHEUS_URL.trim() } : {}),
    });
  } catch (error) {
    const message = isSvcError(error) ? error.describe() : String((error as Error)?.message ?? error);
    process.stderr.write(
      `${JSON.stringify({ time: new Date().toISOString(), level: 'error', event: 'boot_failed', message })}\n`,
    );
    process.exit(isSvcError(error) ? 78 : 1);
  }
  process.stdout.write(`svc control listening on ${running.url}\n`);
  let stopping = false;
  const stop = () => {
    // A job under way is cancelled and queued again (import-worker.ts); a second signal does not wait.
    if (stopping) process.exit(1);
    stopping = true;
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

void main();
