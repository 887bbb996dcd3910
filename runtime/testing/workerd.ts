/**
 * workerd (Cloudflare's open-source Workers runtime, the npm package `workerd`) serving a bundle
 * that `svc worker build` wrote, on 127.0.0.1, for tests and benchmarks: the real engine Workers
 * run, with its rules (no code generation from strings, Web APIs, nodejs_compat).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { freePort } from './haproxy.js';

export interface Workerd {
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  pid: number;
  /** What workerd printed (the Worker's console.log lines among them). */
  lines: string[];
  close(): Promise<void>;
}

/** The workerd binary the npm package installed (its platform package's bin/workerd). */
export function workerdBinary(): string {
  const require = createRequire(import.meta.url);
  return (require('workerd') as { default: string }).default;
}

/**
 * Serves `<dir>/workerd.capnp` with the given variables; resolves once /healthz answers (with any
 * status: a Worker missing a variable answers 503 to everything, which is what a test looks at).
 */
export async function startWorkerd(dir: string, env: Record<string, string> = {}): Promise<Workerd> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    workerdBinary(),
    ['serve', join(dir, 'workerd.capnp'), '--socket-addr', `http=127.0.0.1:${port}`],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', ...env } },
  );
  const lines: string[] = [];
  const keep = (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`workerd exited: ${lines.join('\n')}`);
    const ok = await fetch(`${origin}/healthz`).then(
      () => true,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`workerd did not come up: ${lines.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    origin,
    port,
    pid: child.pid!,
    lines,
    async close() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
