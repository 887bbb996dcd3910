/**
 * The committed per-endpoint change of a folder between two commits: the normalized endpoint lists of the
 * latest complete import recorded in .svc/ at the base and at the head, compared by the generator's own
 * endpoint diff (the same rules and ids as `svc diff`).
 */
import type { FolderFiles } from '../../folder/model.js';
import { parse as parseYaml } from 'yaml';
import { type DiffOptions, diffEndpoints, diffOptionsOf } from '../../generator/diff/index.js';
import { lastComplete, loadEndpoints, readHistory } from '../../generator/history/index.js';
import type { Endpoint, EndpointChange, SvcConfig } from '../../schemas/types.js';
import type { EndpointChangeView, FolderEndpointDiff } from './engine.js';

/** Endpoints of the folder's latest complete import, with that import's seq; undefined when none. */
export function latestImport(files: FolderFiles): { seq: number; endpoints: Endpoint[] } | undefined {
  const last = lastComplete(readHistory(files));
  if (!last?.endpoints) return undefined;
  return { seq: last.seq, endpoints: loadEndpoints(files, last.endpoints) };
}

export function toChangeView(change: EndpointChange): EndpointChangeView {
  return {
    endpoint: change.key,
    kind: change.kind,
    breaking: change.breaking,
    details:
      change.kind === 'changed'
        ? change.changes.map((c) => `${c.level === 'breaking' ? '**breaking** ' : ''}${c.text} (\`${c.id}\`)`)
        : [],
    ...(change.kind === 'changed' ? { ids: change.changes.map((c) => c.id) } : {}),
  };
}

/** The head's `diff:` block of config.yaml (rule levels, sunset grace); defaults when unreadable. */
function headDiffOptions(head: FolderFiles): DiffOptions {
  const text = head['config.yaml'];
  if (text === undefined) return {};
  try {
    const config = parseYaml(text) as { diff?: SvcConfig['diff'] } | undefined;
    return diffOptionsOf(config?.diff);
  } catch {
    return {};
  }
}

export function historyEndpointDiff(base: FolderFiles, head: FolderFiles): FolderEndpointDiff {
  const before = latestImport(base);
  const after = latestImport(head);
  if (!after || before?.seq === after.seq) return { changes: [] };
  return {
    changes: diffEndpoints(before?.endpoints ?? [], after.endpoints, headDiffOptions(head)).map(toChangeView),
  };
}
