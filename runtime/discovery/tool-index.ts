/**
 * Full-text search over the served tools of one config version, for search mode
 * (contracts/discovery.md). BM25 ranking by MiniSearch over the words a person uses: the
 * name and path split into words, the title, the description, the parameter names and the
 * kind of operation. Terms are lower-cased and stemmed (Porter, `stemmer`), so "merging pull
 * requests" meets "Merge a pull request". Built once when the config loads; results are
 * deterministic (ties are broken by name).
 *
 * The weights were chosen by the retrieval bench (`npm run bench -- discovery`): see
 * docs/discovery.md for the figures.
 */
import MiniSearch from 'minisearch';
import { stemmer } from 'stemmer';

/** What the index reads of one tool. */
export interface IndexedTool {
  name: string;
  title?: string;
  description: string;
  method: string;
  path: string;
  classification: string;
  parameters: readonly string[];
}

export interface SearchHit {
  name: string;
  score: number;
}

export interface ToolIndex {
  search(query: string, limit: number): SearchHit[];
  readonly size: number;
}

/** Field weights: a word in the name or title says more about a tool than one in its prose. */
export const FIELD_BOOST = { name: 3, title: 2, path: 1.5, params: 1, kind: 1, description: 1 } as const;

const STOP_WORDS = new Set(
  'a an and are as at be by can do does for from get i in into is it its me my of on or our please show that the their them these this to us want we what which with you your'.split(
    ' ',
  ),
);

/** Verbs people use for an operation kind, so "delete", "remove" and "destroy" all reach a DELETE. */
const KIND_WORDS: Record<string, string> = {
  list: 'list all find browse search',
  get: 'get show read fetch view retrieve describe',
  create: 'create add new make post open start',
  update: 'update change edit modify set patch',
  replace: 'replace update set change put',
  delete: 'delete remove destroy cancel drop',
  action: '',
};

/** Splits identifiers (`pulls/merge`, `createIssueComment`, `repo_id`) and prose into words. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0);
}

function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  if (lower.length < 2 || STOP_WORDS.has(lower)) return null;
  return stemmer(lower);
}

interface Doc {
  id: number;
  name: string;
  title: string;
  description: string;
  path: string;
  params: string;
  kind: string;
}

export function buildToolIndex(tools: readonly IndexedTool[]): ToolIndex {
  const names = tools.map((t) => t.name);
  const mini = new MiniSearch<Doc>({
    fields: ['name', 'title', 'description', 'path', 'params', 'kind'],
    tokenize: words,
    processTerm,
    searchOptions: { boost: { ...FIELD_BOOST }, combineWith: 'OR', prefix: (term) => term.length >= 4 },
  });
  mini.addAll(
    tools.map((t, id) => ({
      id,
      name: t.name,
      title: t.title ?? '',
      // Only the opening of a long description: the rest is reference prose that drowns the ranking.
      description: t.description.slice(0, 600),
      path: t.path.replace(/\{[^}]*\}/g, ' '),
      params: t.parameters.join(' '),
      kind: `${t.method} ${t.classification} ${KIND_WORDS[t.classification] ?? ''}`,
    })),
  );
  return {
    size: tools.length,
    search(query, limit) {
      const hits = mini.search(query);
      hits.sort((a, b) => b.score - a.score || compare(names[a.id]!, names[b.id]!));
      return hits.slice(0, limit).map((h) => ({ name: names[h.id]!, score: h.score }));
    },
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
