import { describe, expect, it } from 'vitest';
import { redirectLoop } from './redirect-loop.js';

/** A fake server: each path answers a status and maybe a Location. */
const routes: Record<string, { status: number; location?: string }> = {
  '/a': { status: 302, location: '/b' },
  '/b': { status: 301, location: 'https://elsewhere.test/c' },
  '/c': { status: 200 },
  '/loop': { status: 302, location: '/loop' },
};

function policy(sameOriginOnly: boolean, max = 5) {
  const sent: string[] = [];
  return {
    sent,
    send: async (url: URL) => {
      sent.push(url.href);
      return routes[url.pathname] ?? { status: 404 };
    },
    next: (answer: { status: number; location?: string }, url: URL, hop: number) => {
      if (answer.status < 300 || answer.status > 399 || !answer.location) return undefined;
      const target = new URL(answer.location, url);
      if (sameOriginOnly && target.origin !== url.origin) return undefined;
      if (hop >= max) throw new Error(`more than ${max} redirects`);
      return target;
    },
  };
}

describe('redirectLoop', () => {
  it('follows while the policy says so and answers the last answer with its request', async () => {
    const p = policy(false);
    const { request, response } = await redirectLoop(new URL('https://origin.test/a'), p);
    expect(p.sent).toEqual(['https://origin.test/a', 'https://origin.test/b', 'https://elsewhere.test/c']);
    expect(request.href).toBe('https://elsewhere.test/c');
    expect(response.status).toBe(200);
  });

  it('stops where the policy does not follow, answering that redirect', async () => {
    const p = policy(true);
    const { request, response } = await redirectLoop(new URL('https://origin.test/a'), p);
    expect(request.href).toBe('https://origin.test/b');
    expect(response.status).toBe(301);
  });

  it("the policy's refusal ends the fetch", async () => {
    const p = policy(true, 3);
    await expect(redirectLoop(new URL('https://origin.test/loop'), p)).rejects.toThrow(
      'more than 3 redirects',
    );
    expect(p.sent).toHaveLength(4);
  });
});
