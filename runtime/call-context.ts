/**
 * The per-request CallContext (tool-call.ts) handed from the app to the SDK's request handlers:
 * the SDK gives a handler the HTTP request it serves (ctx.http.req), and the app files the
 * context under that request object. The hot path gets the context as an argument instead.
 */
import type { CallContext } from './tool-call.js';

const contexts = new WeakMap<Request, CallContext>();

export function attachCallContext(request: Request, call: CallContext): void {
  contexts.set(request, call);
}

/** The context attached to this request (by the auth gate), if any. */
export function attachedCallContext(request: Request): CallContext | undefined {
  return contexts.get(request);
}

/** The context the app attached, or one with the request's headers alone. */
export function callContextOf(request: Request | undefined): CallContext | undefined {
  if (!request) return undefined;
  return contexts.get(request) ?? { headers: request.headers };
}
