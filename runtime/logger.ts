/**
 * Structured logs: one JSON object per line on stderr. Every line passes through the
 * redactor so that no secret can be logged by accident.
 */
import type { Redactor } from './redact.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  log(level: LogLevel, event: string, fields?: Record<string, unknown>): void;
}

export interface LogRecord {
  time: string;
  level: LogLevel;
  event: string;
  [key: string]: unknown;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function jsonLineLogger(options: {
  write?: (line: string) => void;
  redact?: Redactor;
  minLevel?: LogLevel;
  now?: () => number;
}): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const redact = options.redact ?? ((t: string) => t);
  const min = ORDER[options.minLevel ?? 'info'];
  const now = options.now ?? Date.now;
  return {
    log(level, event, fields) {
      if (ORDER[level] < min) return;
      const record: LogRecord = { time: new Date(now()).toISOString(), level, event, ...fields };
      write(`${redact(JSON.stringify(record))}\n`);
    },
  };
}

/** A logger that keeps records in memory (tests, benchmarks) — still redacted. */
export function memoryLogger(redact?: Redactor): Logger & { records: LogRecord[]; lines: string[] } {
  const records: LogRecord[] = [];
  const lines: string[] = [];
  const inner = jsonLineLogger({
    redact,
    minLevel: 'debug',
    write: (line) => {
      lines.push(line);
      records.push(JSON.parse(line) as LogRecord);
    },
  });
  return { records, lines, log: inner.log };
}

/** Wraps a caller's logger so that everything it receives is redacted too (string fields shallowly, others as JSON). */
export function redactingLogger(inner: Logger, redact: Redactor): Logger {
  return {
    log(level, event, fields) {
      if (!fields) return inner.log(level, event);
      const safe: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(fields)) {
        if (typeof v === 'string') safe[k] = redact(v);
        else if (v === null || typeof v !== 'object') safe[k] = v;
        else safe[k] = JSON.parse(redact(JSON.stringify(v)));
      }
      inner.log(level, event, safe);
    },
  };
}
