/**
 * The execution log (contracts/operations.md): one JSON line per tool call — time, tool,
 * outcome, upstream status, duration, bytes, caller, trace id, config version and commit — on
 * stdout or appended to a file that is rotated by size (`<file>.1` … `<file>.5`, the oldest
 * dropped). Arguments and results are left out unless SVC_LOG_ARGUMENTS=1, and every value
 * goes through the runtime's redactor like every other output.
 */
import {
  closeSync,
  createWriteStream,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  type WriteStream,
} from 'node:fs';
import { SvcError } from '../core/svc-error.js';
import { type Redactor, redactValue } from './redact.js';
import type { CallRecord } from './tool-call.js';
import type { ToolCallResult } from './upstream-call.js';

/** Rotated files kept beside the live one. */
export const EXECUTION_LOG_KEEP = 5;

export interface ExecutionLogOptions {
  /** `stdout`, or a file path. */
  target: string;
  maxBytes: number;
  logArguments: boolean;
  redact: Redactor;
  now?: () => number;
  /** Where lines go instead of stdout or the file (tests). */
  write?: (line: string) => void;
}

export interface ExecutionLog {
  record(
    record: CallRecord,
    configCommit: string,
    args: Record<string, unknown> | undefined,
    result: ToolCallResult,
  ): void;
  /** Flushes and closes the file. */
  close(): Promise<void>;
}

/** A file sink that starts a new file once the current one passes maxBytes. */
function rotatingFile(path: string, maxBytes: number): { write(line: string): void; close(): Promise<void> } {
  // A path that cannot be written is refused at boot, not found out at the first call.
  try {
    closeSync(openSync(path, 'a'));
  } catch (error) {
    throw new SvcError(
      'USAGE',
      `SVC_EXECUTION_LOG: cannot append to ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      { place: { field: 'SVC_EXECUTION_LOG', file: path }, cause: error },
    );
  }
  let size = statSync(path).size;
  const ending = new Set<Promise<void>>();
  const open = () => {
    // Opened at once (not when the stream gets round to it): the file exists for the next rotation.
    const next = createWriteStream(path, { fd: openSync(path, 'a') });
    // A disk that fills up later costs log lines, never the process.
    next.on('error', (error) =>
      process.stderr.write(
        `${JSON.stringify({ time: new Date().toISOString(), level: 'error', event: 'execution_log_failed', message: error.message })}\n`,
      ),
    );
    return next;
  };
  let stream: WriteStream = open();
  const rotate = () => {
    // The old stream keeps writing into the renamed file until it has flushed what it holds.
    const ended = new Promise<void>((resolve) => stream.end(resolve));
    ending.add(ended);
    void ended.then(() => ending.delete(ended));
    try {
      unlinkSync(`${path}.${EXECUTION_LOG_KEEP}`);
    } catch {
      // nothing to drop yet
    }
    for (let i = EXECUTION_LOG_KEEP - 1; i >= 1; i--) {
      try {
        renameSync(`${path}.${i}`, `${path}.${i + 1}`);
      } catch {
        // not that many yet
      }
    }
    renameSync(path, `${path}.1`);
    stream = open();
    size = 0;
  };
  return {
    write(line) {
      const bytes = Buffer.byteLength(line);
      if (size > 0 && size + bytes > maxBytes) rotate();
      size += bytes;
      stream.write(line);
    },
    async close() {
      await new Promise<void>((resolve) => stream.end(resolve));
      await Promise.all(ending);
    },
  };
}

export function createExecutionLog(opts: ExecutionLogOptions): ExecutionLog {
  const now = opts.now ?? Date.now;
  const file = opts.write || opts.target === 'stdout' ? undefined : rotatingFile(opts.target, opts.maxBytes);
  const write = opts.write ?? file?.write ?? ((line: string) => void process.stdout.write(line));
  return {
    record(record, configCommit, args, result) {
      const line: Record<string, unknown> = {
        time: new Date(now()).toISOString(),
        event: 'tool_call',
        tool: record.tool,
        outcome: record.outcome,
        status: record.status ?? null,
        ...(record.failure !== undefined ? { failure: record.failure } : {}),
        durationMs: Math.round(record.durationMs * 10) / 10,
        bytes: record.bytes ?? null,
        caller: record.caller ?? null,
        traceId: record.traceId ?? null,
        configVersion: record.configVersion,
        configCommit,
      };
      if (opts.logArguments) {
        line.arguments = args ?? {};
        line.result = result;
      }
      write(`${JSON.stringify(redactValue(opts.redact, line))}\n`);
    },
    close: () => file?.close() ?? Promise.resolve(),
  };
}
