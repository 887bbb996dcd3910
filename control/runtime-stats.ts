/**
 * The status page's per-server panel: calls, errors and p95 latency over the last hour, read
 * from the Prometheus that scrapes the runtimes (SVC_PROMETHEUS_URL). The runtimes label every
 * series with their server id (`server`), so this is three instant queries, grouped by it.
 * Bounded in time; a Prometheus that is down or slow leaves the panel saying so, never the page.
 */

export interface ServerCallStats {
  server: string;
  calls: number;
  errors: number;
  /** Seconds; NaN when no call was timed. */
  p95: number;
}

export type RuntimeStats = { ok: true; servers: ServerCallStats[] } | { ok: false; reason: string };

const QUERIES = {
  calls: 'sum by (server) (increase(svc_tool_calls_total[1h]))',
  errors: 'sum by (server) (increase(svc_tool_calls_total{outcome!="ok"}[1h]))',
  p95: 'histogram_quantile(0.95, sum by (server, le) (increase(svc_tool_call_duration_seconds_bucket[1h])))',
} as const;

interface Sample {
  metric: { server?: string };
  value: [number, string];
}

export async function fetchRuntimeStats(
  prometheusUrl: string,
  fetchImpl: typeof fetch = fetch,
  timeoutMs = 3000,
): Promise<RuntimeStats> {
  const base = prometheusUrl.replace(/\/+$/, '');
  const query = async (expr: string): Promise<Sample[]> => {
    const response = await fetchImpl(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new Error(`Prometheus answered ${response.status}`);
    const body = (await response.json()) as { status?: string; data?: { result?: Sample[] } };
    if (body.status !== 'success') throw new Error('Prometheus could not run the query');
    return body.data?.result ?? [];
  };
  try {
    const [calls, errors, p95] = await Promise.all([
      query(QUERIES.calls),
      query(QUERIES.errors),
      query(QUERIES.p95),
    ]);
    const byServer = new Map<string, ServerCallStats>();
    const entry = (server: string) => {
      let stats = byServer.get(server);
      if (!stats) {
        stats = { server, calls: 0, errors: 0, p95: Number.NaN };
        byServer.set(server, stats);
      }
      return stats;
    };
    for (const s of calls) if (s.metric.server) entry(s.metric.server).calls = Number(s.value[1]);
    for (const s of errors) if (s.metric.server) entry(s.metric.server).errors = Number(s.value[1]);
    for (const s of p95) if (s.metric.server) entry(s.metric.server).p95 = Number(s.value[1]);
    return { ok: true, servers: [...byServer.values()].sort((a, b) => (a.server < b.server ? -1 : 1)) };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
