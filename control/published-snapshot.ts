/**
 * What a server publishes: the export (`{server, files}`) of its folder at the branch head, with
 * a strong ETag over the canonical JSON. Heads are looked up at most every `refreshMs` per
 * server (a fetch for a remote repository), concurrent lookups share one, and the export is
 * rebuilt only when the head commit changes, so a poll answered 304 costs a token lookup and
 * a string compare.
 */
import { createHash } from 'node:crypto';
import { isSvcError } from '../core/svc-error.js';
import { exportFolder } from '../generator/render/index.js';
import { canonicalJson } from '../core/canonical-json.js';
import type { GitRepository } from './git/git-repository.js';
import type { ServerRow } from './store/control-store.js';

export interface PublishedState {
  commit: string;
  /**
   * Grows with every new head this service publishes (ms since the epoch when it first saw the
   * head, or one more than the previous): signed with the snapshot, so a runtime can refuse an
   * older snapshot replayed to it.
   */
  sequence: number;
  published: boolean;
  /** The canonical JSON body of the snapshot (only when published). */
  body?: string;
  etag?: string;
  /** Why the folder at the head cannot be exported (invalid, missing). */
  problem?: string;
}

interface Entry {
  state?: PublishedState;
  checkedAt: number;
  refreshing?: Promise<PublishedState>;
}

export interface PublishedSnapshotsOptions {
  repository(server: ServerRow): Promise<GitRepository>;
  refreshMs: number;
  now?: () => number;
}

export function snapshotEtag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`;
}

export class PublishedSnapshots {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;

  constructor(private readonly opts: PublishedSnapshotsOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Forget the head (after a commit by an import job), so the next read looks again. */
  invalidate(serverId: string): void {
    const entry = this.entries.get(serverId);
    if (entry) entry.checkedAt = Number.NEGATIVE_INFINITY;
  }

  async get(server: ServerRow): Promise<PublishedState> {
    let entry = this.entries.get(server.id);
    if (!entry) {
      entry = { checkedAt: Number.NEGATIVE_INFINITY };
      this.entries.set(server.id, entry);
    }
    if (entry.state && this.now() - entry.checkedAt < this.opts.refreshMs) return entry.state;
    if (!entry.refreshing) {
      const current = entry;
      current.refreshing = this.refresh(server, current.state).then(
        (state) => {
          current.state = state;
          current.checkedAt = this.now();
          current.refreshing = undefined;
          return state;
        },
        (error) => {
          current.refreshing = undefined;
          throw error;
        },
      );
    }
    return entry.refreshing as Promise<PublishedState>;
  }

  private async refresh(server: ServerRow, previous: PublishedState | undefined): Promise<PublishedState> {
    const repo = await this.opts.repository(server);
    const commit = await repo.head(server.branch);
    if (previous && previous.commit === commit) return previous;
    const sequence = Math.max(Math.floor(this.now()), (previous?.sequence ?? 0) + 1);
    let files: Awaited<ReturnType<GitRepository['readFolder']>>;
    try {
      files = await repo.readFolder(commit, server.path);
    } catch (error) {
      if (isSvcError(error)) return { commit, sequence, published: false, problem: error.message };
      throw error;
    }
    try {
      const exported = exportFolder(files);
      if (!exported.server.server.published) return { commit, sequence, published: false };
      const body = canonicalJson(exported);
      return { commit, sequence, published: true, body, etag: snapshotEtag(body) };
    } catch (error) {
      if (isSvcError(error)) return { commit, sequence, published: false, problem: error.message };
      throw error;
    }
  }
}

/**
 * RFC 9110 §13.1.2: If-None-Match uses the weak comparison, so `W/"x"` matches `"x"` (a proxy that
 * weakens ETags must not turn every poll into a full answer).
 */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((candidate) => opaque(candidate) === opaque(etag));
}
