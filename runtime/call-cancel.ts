/**
 * Cancellation of one tool call without an AbortController. A controller and its signal are an
 * EventTarget with internals of their own; one per request (Hono's request.signal), one per
 * upstream call (timeout and cancel) and node:http's own listeners on it came to about 5% of the
 * runtime's busy time under 16 concurrent clients. A call needs much less: a flag, a reason and
 * a few listeners. An AbortSignal has the same shape (CancelSignal), so the SDK's signal is
 * passed as it is.
 */

/** What a call reads of its cancellation: a part of AbortSignal, so an AbortSignal will do. */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export class CallCancel implements CancelSignal {
  aborted = false;
  reason: unknown;
  #listeners: (() => void)[] = [];

  /** Cancels once; later calls do nothing. Listeners run at once, each a single time. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.#listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.#listeners.indexOf(listener);
    if (at !== -1) this.#listeners.splice(at, 1);
  }
}
