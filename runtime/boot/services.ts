/**
 * Build app, the process's part: what every served app shares and boot alone opens and closes —
 * the execution log (SVC_EXECUTION_LOG), tracing (OTEL_*) and the metrics factory (SVC_METRICS).
 */
import type { CreateAppOptions } from '../app.js';
import type { RuntimeEnv } from '../env.js';
import { createExecutionLog } from '../execution-log.js';
import type { Redactor } from '../redact.js';

export interface ProcessServices {
  /** Spread into each app's options. */
  app: Pick<CreateAppOptions, 'executionLog' | 'tracing' | 'metrics'>;
  /** After the apps have drained: flushes the execution log and the last spans. */
  close(): Promise<void>;
}

export async function startServices(
  env: RuntimeEnv,
  redact: Redactor,
  executionLogWrite?: (line: string) => void,
): Promise<ProcessServices> {
  const executionLog =
    env.executionLog !== undefined || executionLogWrite
      ? createExecutionLog({
          target: env.executionLog ?? 'stdout',
          maxBytes: env.executionLogMaxBytes,
          logArguments: env.logArguments,
          redact,
          ...(executionLogWrite ? { write: executionLogWrite } : {}),
        })
      : undefined;
  // Loaded only when asked for: the OpenTelemetry SDK costs boot time and memory.
  const tracing = env.otel ? (await import('../tracing.js')).createTracing(env.otel) : undefined;
  // prom-client too, only with SVC_METRICS on (the default).
  const metrics = env.metrics ? (await import('../metrics.js')).createRuntimeMetrics : undefined;
  return {
    app: {
      ...(executionLog ? { executionLog } : {}),
      ...(tracing ? { tracing } : {}),
      ...(metrics ? { metrics } : {}),
    },
    async close() {
      await executionLog?.close();
      await tracing?.shutdown().catch(() => undefined);
    },
  };
}
