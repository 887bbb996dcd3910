/**
 * Rate limits on tool calls (config.yaml `rateLimits`, contracts/operations.md): at most n calls
 * per second, minute or hour per caller across all tools, and per tool across all callers.
 * Counted in this process (rate-limiter-flexible's RateLimiterMemory: n points per window of
 * the unit, the window opening at a key's first call), so each replica counts on its own.
 * A folder without `rateLimits` costs nothing: `check` answers undefined at once, no promise.
 */
import type { RateLimiterMemory } from 'rate-limiter-flexible';
import type { SvcConfig } from '../schemas/types.js';

const UNIT_SECONDS = { s: 1, m: 60, h: 3600 } as const;
const UNIT_WORDS = { s: 'second', m: 'minute', h: 'hour' } as const;

export interface RateSpec {
  points: number;
  seconds: number;
  /** "60 calls per minute" */
  words: string;
}

/** "60/m" → 60 calls per 60 s; undefined when the text is not n/s, n/m or n/h. */
export function parseRate(text: string): RateSpec | undefined {
  const m = /^([1-9][0-9]{0,8})\/([smh])$/.exec(text);
  if (!m) return undefined;
  const points = Number(m[1]);
  const unit = m[2] as keyof typeof UNIT_SECONDS;
  return {
    points,
    seconds: UNIT_SECONDS[unit],
    words: `${points} call${points === 1 ? '' : 's'} per ${UNIT_WORDS[unit]}`,
  };
}

export interface RateLimitRefusal {
  /** Which limit: `perCaller` or `perTool.<name>`. */
  limit: string;
  spec: RateSpec;
  /** Whole seconds until the window reopens (at least 1). */
  retryAfterSeconds: number;
}

interface LimiterEntry {
  limiter: Promise<RateLimiterMemory>;
  spec: RateSpec;
}

export interface RateLimits {
  /** undefined: within the limits (or none configured), synchronously when none is. */
  check(config: SvcConfig, tool: string, caller: string): undefined | Promise<RateLimitRefusal | undefined>;
}

// rate-limiter-flexible loads with the first limit a folder sets: most never set one (~30 ms of a boot).
let limiterModule: Promise<typeof import('rate-limiter-flexible')> | undefined;
const loadLimiterModule = () => {
  limiterModule ??= import('rate-limiter-flexible');
  return limiterModule;
};

/** One store of counters per runtime app; a limit's counters outlive config swaps while its text stays the same. */
export function createRateLimits(): RateLimits {
  const limiters = new Map<string, LimiterEntry>();
  const limiterFor = (scope: string, text: string) => {
    const id = `${scope}\u0000${text}`;
    let entry = limiters.get(id);
    if (!entry) {
      const spec = parseRate(text);
      // The schema refuses any other text; a folder that got here anyway is not limited by it.
      if (!spec) return undefined;
      const limiter = loadLimiterModule().then(
        ({ RateLimiterMemory }) => new RateLimiterMemory({ points: spec.points, duration: spec.seconds }),
      );
      entry = { spec, limiter };
      limiters.set(id, entry);
    }
    return entry;
  };

  const consume = async (
    entry: LimiterEntry,
    key: string,
    limit: string,
  ): Promise<RateLimitRefusal | undefined> => {
    const limiter = await entry.limiter;
    try {
      await limiter.consume(key, 1);
      return undefined;
    } catch (error) {
      const { RateLimiterRes } = await loadLimiterModule();
      if (!(error instanceof RateLimiterRes)) throw error;
      return {
        limit,
        spec: entry.spec,
        retryAfterSeconds: Math.max(1, Math.ceil(error.msBeforeNext / 1000)),
      };
    }
  };

  return {
    check(config, tool, caller) {
      const limits = config.rateLimits;
      if (!limits) return undefined;
      const perCaller = limits.perCaller ? limiterFor('caller', limits.perCaller) : undefined;
      const toolText = limits.perTool?.[tool];
      const perTool = toolText ? limiterFor(`tool`, toolText) : undefined;
      if (!perCaller && !perTool) return undefined;
      return (async () => {
        if (perCaller) {
          const refused = await consume(perCaller, caller, 'perCaller');
          if (refused) return refused;
        }
        if (perTool) {
          const refused = await consume(perTool, tool, `perTool.${tool}`);
          // The call does not happen: the caller's point is given back.
          if (refused && perCaller) await (await perCaller.limiter).reward(caller, 1);
          if (refused) return refused;
        }
        return undefined;
      })();
    },
  };
}

/** The isError text a refused call gets: which limit, and when to try again. */
export function describeRefusal(refusal: RateLimitRefusal, tool: string): string {
  const who =
    refusal.limit === 'perCaller'
      ? 'for each caller, across all tools'
      : `for tool ${tool}, across all callers`;
  return (
    `Rate limit reached: this server allows ${refusal.spec.words} ${who} (config.yaml rateLimits.${refusal.limit}). ` +
    `The API was not called. Retry after ${refusal.retryAfterSeconds} s.`
  );
}

/**
 * Who is calling, for the per-caller limit and the execution log: the authenticated subject
 * when there is one, else the client address — the first X-Forwarded-For entry only when the
 * operator says a proxy in front sets it (SVC_TRUST_PROXY=1), since a client can send any.
 */
export function callerOf(
  subject: string | undefined,
  remoteAddress: string | undefined,
  forwardedFor: string | null | undefined,
  trustProxy: boolean,
): string {
  if (subject) return `sub:${subject}`;
  if (trustProxy && forwardedFor) {
    const first = forwardedFor.split(',')[0]?.trim();
    if (first) return first;
  }
  return remoteAddress || 'unknown';
}
