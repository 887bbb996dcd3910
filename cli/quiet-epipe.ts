/**
 * `svc … | head` closes the pipe while svc may still write: the write fails with EPIPE, reported as an
 * 'error' event on process.stdout that, unhandled, crashes with a stack trace. The reader took what it
 * wanted, so svc drops the rest of its output and carries on: the command still finishes what it was
 * doing (a folder half written because nobody read the checklist would be far worse than the noise)
 * and exits with its own code. Any other stream error is still thrown.
 */
export function quietEpipe(...streams: NodeJS.WritableStream[]): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
}
