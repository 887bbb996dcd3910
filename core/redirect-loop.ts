/**
 * The one redirect loop, with the policy per hop left to the caller: which answers are
 * redirects, which targets may be followed (same origin only, an address check, a hop limit),
 * what the next request carries (credentials dropped off-origin, POST turned into GET). Used by
 * the runtime's upstream calls (runtime/upstream-call.ts: same origin only, the answer returned
 * as it is otherwise), by the readers of URLs someone else wrote
 * (generator/sources/follow-redirects.ts: every hop's address checked, too many is an error) and
 * by the OpenAPI URL reader (generator/sources/openapi-source.ts fetchFollowing: the caller's
 * headers to the first origin only).
 */
export interface RedirectPolicy<Req, Res> {
  /** Sends one request (an address check before it, if the policy has one). */
  send(request: Req): Promise<Res>;
  /**
   * The request to send after this answer, or undefined when this answer is the last: not a
   * redirect, or one the policy does not follow. Throws to refuse the whole fetch.
   */
  next(response: Res, request: Req, hop: number): Req | undefined | Promise<Req | undefined>;
}

/** Sends `first`, then whatever the policy says to send next; answers the last answer and its request. */
export async function redirectLoop<Req, Res>(
  first: Req,
  policy: RedirectPolicy<Req, Res>,
): Promise<{ request: Req; response: Res }> {
  let request = first;
  for (let hop = 0; ; hop++) {
    const response = await policy.send(request);
    const next = await policy.next(response, request, hop);
    if (next === undefined) return { request, response };
    request = next;
  }
}
