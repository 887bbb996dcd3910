/**
 * The container entry (Dockerfile CMD): environment → startRuntime; SIGTERM/SIGINT → graceful
 * close. Exit codes: 0 after a clean shutdown, 78 (EX_CONFIG) when the folder or the
 * environment is wrong, 1 on anything else.
 */
// First, and the runtime itself loaded only after it: the boot hold (boot-heap.ts) must run before any of the
// SDK's modules (CommonJS ones run as soon as the import graph is loaded, before this file).
import './hold-boot-heap.js';
import { enableCompileCache } from '../core/compile-cache.js';
import { isSvcError } from '../core/svc-error.js';
import { parseRuntimeEnv } from './env.js';

function bootFailure(error: unknown): never {
  const record = isSvcError(error)
    ? {
        level: 'error',
        event: 'boot_failed',
        code: error.code,
        place: error.place,
        message: error.describe(),
      }
    : { level: 'error', event: 'boot_failed', message: String((error as Error)?.message ?? error) };
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...record })}\n`);
  process.exit(isSvcError(error) ? 78 : 1);
}

async function main(): Promise<void> {
  enableCompileCache();
  const { startRuntime } = await import('./start-runtime.js');
  let running: Awaited<ReturnType<typeof startRuntime>>;
  try {
    running = await startRuntime({ env: parseRuntimeEnv(process.env) });
  } catch (error) {
    bootFailure(error);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(
      `${JSON.stringify({ time: new Date().toISOString(), level: 'info', event: 'signal', signal })}\n`,
    );
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

void main();
