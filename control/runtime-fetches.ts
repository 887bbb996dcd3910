/** Which runtime last fetched which commit of a server (kept in memory, per control instance). */
export interface RuntimeFetch {
  runtimeId: string;
  commit: string;
  /** 200: fetched the snapshot; 304: already had it. */
  status: number;
  at: string;
}

const MAX_RUNTIMES_PER_SERVER = 1000;

export class RuntimeFetches {
  readonly #byServer = new Map<string, Map<string, RuntimeFetch>>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** A poll named its runtime (Svc-Runtime-Id): the newest fetch per runtime, at most 1000 runtimes per server. */
  record(serverId: string, runtimeId: string | undefined, commit: string, status: number): void {
    if (!runtimeId) return;
    const id = runtimeId.slice(0, 200);
    let seen = this.#byServer.get(serverId);
    if (!seen) {
      seen = new Map();
      this.#byServer.set(serverId, seen);
    }
    seen.delete(id);
    seen.set(id, { runtimeId: id, commit, status, at: new Date(this.#now()).toISOString() });
    if (seen.size > MAX_RUNTIMES_PER_SERVER) seen.delete(seen.keys().next().value as string);
  }

  /** The server's runtimes, the latest fetch first. */
  of(serverId: string): RuntimeFetch[] {
    return [...(this.#byServer.get(serverId)?.values() ?? [])].sort((a, b) => b.at.localeCompare(a.at));
  }
}
