/**
 * Debian's haproxy (`apt-get install haproxy`; .ci/run installs it) as the tests run it: in the
 * foreground, round-robin over the given loopback backends, health-checking each on a path
 * (`/readyz`) every 200 ms, and retrying a request whose backend died before answering on
 * another one. The config written is the one docs/fleet.md shows.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Haproxy {
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  /** stderr lines (haproxy's own log: servers going down and up). */
  lines: string[];
  close(): Promise<void>;
}

export function haproxyBinary(): string | undefined {
  for (const candidate of ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy'])
    if (existsSync(candidate)) return candidate;
  return undefined;
}

/** A loopback port free right now (haproxy must be told its port before it starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function haproxyConfig(port: number, backends: number[], healthPath = '/readyz'): string {
  return [
    'global',
    '  maxconn 2000',
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 60s',
    '  timeout server 60s',
    // A request whose backend died before answering is sent again, to another replica.
    '  retries 3',
    '  retry-on conn-failure empty-response response-timeout',
    '  option redispatch 1',
    '  option http-buffer-request',
    'frontend mcp',
    `  bind 127.0.0.1:${port}`,
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    '  option httpchk',
    `  http-check send meth GET uri ${healthPath} ver HTTP/1.1 hdr Host localhost`,
    '  http-check expect status 200',
    '  timeout check 1s',
    '  default-server inter 200ms fall 1 rise 2',
    ...backends.map((p, i) => `  server r${i + 1} 127.0.0.1:${p} check`),
    '',
  ].join('\n');
}

export async function startHaproxy(backends: number[], healthPath = '/readyz'): Promise<Haproxy> {
  const binary = haproxyBinary();
  if (!binary) throw new Error('haproxy is not installed (apt-get install haproxy; .ci/run does it)');
  const dir = await mkdtemp(join(tmpdir(), 'svc-haproxy-'));
  const port = await freePort();
  const config = join(dir, 'haproxy.cfg');
  await writeFile(config, haproxyConfig(port, backends, healthPath));
  const child: ChildProcess = spawn(binary, ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  const lines: string[] = [];
  child.stderr!.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const origin = `http://127.0.0.1:${port}`;
  // Up once it answers and every backend passed its health check.
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${lines.join('\n')}`);
    const ok = await fetch(`${origin}${healthPath}`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`haproxy did not come up: ${lines.join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    origin,
    port,
    lines,
    async close() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
