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
export const FIELD_BOOST = { name: 2, title: 3, path: 1, params: 0.5, kind: 1, description: 0.7 } as const;
/** Weight of a word the query did not say but implies ("open" implies "create"). */
const IMPLIED_WEIGHT = 0.6;

const STOP_WORDS = new Set(
  'a an and are as at be by can do does for from how in into is it its of on or please should that the their them then there these this to up want was we were what when where which who why will with would you your'.split(
    ' ',
  ),
);

/**
 * The words people use for the operations an API offers, mapped to the words API descriptions
 * use for them ("open a pull request" → "Create a pull request"; "my repositories" →
 * "repositories for the authenticated user"). Applied to the query only; generic English, never
 * a single API's vocabulary.
 */
const IMPLIES: Record<string, readonly string[]> = {
  create: [
    'add',
    'new',
    'make',
    'open',
    'publish',
    'leave',
    'post',
    'submit',
    'write',
    'register',
    'start',
    'issue',
    'send',
    'upload',
  ],
  delete: ['remove', 'destroy', 'drop', 'erase', 'cancel', 'revoke'],
  update: ['change', 'edit', 'modify', 'set', 'rename', 'close', 'reopen', 'patch', 'replace'],
  get: ['show', 'read', 'fetch', 'view', 'retrieve', 'see', 'check', 'describe', 'inspect', 'status'],
  list: ['all', 'browse', 'find', 'every', 'many'],
  authenticated: ['me', 'my', 'mine', 'myself', 'i', 'am', 'current', 'logged'],
  user: ['me', 'my', 'mine', 'myself', 'i', 'am', 'logged'],
};
const IMPLIED_BY = new Map<string, string[]>();
for (const [target, sayings] of Object.entries(IMPLIES))
  for (const saying of sayings) IMPLIED_BY.set(saying, [...(IMPLIED_BY.get(saying) ?? []), target]);

/** Splits identifiers (`pulls/merge`, `createIssueComment`, `repo_id`) and prose into words. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0);
}

/** Abbreviations API names use for the words people say ("repos_list" is about repositories). */
const ABBREVIATIONS: Record<string, string> = {
  repo: 'repository',
  repos: 'repositories',
  org: 'organization',
  orgs: 'organizations',
  pr: 'pull',
  prs: 'pulls',
  config: 'configuration',
  configs: 'configurations',
  env: 'environment',
  auth: 'authentication',
  app: 'application',
  apps: 'applications',
  info: 'information',
  msg: 'message',
  img: 'image',
  pkg: 'package',
  db: 'database',
  ns: 'namespace',
  svc: 'service',
  cm: 'configmap',
  hpa: 'horizontalpodautoscaler',
  pvc: 'persistentvolumeclaim',
};

function indexTerm(term: string): string | string[] | null {
  const lower = term.toLowerCase();
  if (lower.length < 2 || STOP_WORDS.has(lower)) return null;
  const long = ABBREVIATIONS[lower];
  return long ? [stemmer(lower), stemmer(long)] : stemmer(lower);
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

export type IndexField = keyof typeof FIELD_BOOST;
const ALL_FIELDS: readonly IndexField[] = ['name', 'title', 'description', 'path', 'params', 'kind'];

/** `fields` narrows what is indexed (the bench's names-only baseline); all by default. */
/** Phrasal verbs read as one word before anything else ("set up autoscaling" creates it). */
const PHRASES: readonly [RegExp, string][] = [
  [/\bset\s+up\b/gi, 'create'],
  [/\bsign\s+up\b/gi, 'create'],
  [/\bturn\s+on\b/gi, 'enable'],
  [/\bturn\s+off\b/gi, 'disable'],
  [/\bget\s+rid\s+of\b/gi, 'delete'],
  [/\blook\s+up\b/gi, 'get'],
];
/** Writes only: "show" may mean one item or a list of them, but "add" never means "remove". */
const KINDS = new Set(['create', 'update', 'replace', 'delete']);
/** A tool whose kind is the write the person asked for ranks above one that only shares words. */
const INTENT_BONUS = 1.5;

/** The kind of operation a query asks for: its first word that is, or implies, one. */
function intentOf(query: string): string | undefined {
  for (const word of words(query)) {
    const lower = word.toLowerCase();
    if (KINDS.has(lower)) return lower;
    const kind = IMPLIED_BY.get(lower)?.find((k) => KINDS.has(k));
    if (kind) return kind;
  }
  return undefined;
}

export function buildToolIndex(
  tools: readonly IndexedTool[],
  fields: readonly IndexField[] = ALL_FIELDS,
): ToolIndex {
  const names = tools.map((t) => t.name);
  const kinds = tools.map((t) => t.classification);
  // The stems a query implied rather than said, for the search under way (search is synchronous).
  let implied = new Set<string>();
  const queryTerm = (term: string): string[] | null => {
    const lower = term.toLowerCase();
    const extra = (IMPLIED_BY.get(lower) ?? []).map((w) => stemmer(w));
    for (const stem of extra) implied.add(stem);
    const said = indexTerm(term);
    const all = said === null ? extra : [...(Array.isArray(said) ? said : [said]), ...extra];
    return all.length > 0 ? all : null;
  };
  const mini = new MiniSearch<Doc>({
    fields: [...fields],
    tokenize: words,
    processTerm: indexTerm,
    searchOptions: {
      boost: { ...FIELD_BOOST },
      combineWith: 'OR',
      processTerm: queryTerm,
      boostTerm: (term) => (implied.has(term) ? IMPLIED_WEIGHT : 1),
    },
  });
  mini.addAll(
    tools.map((t, id) => ({
      id,
      name: t.name,
      title: t.title ?? '',
      // Only the opening of a long description: the rest is reference prose that drowns the ranking.
      description: firstParagraph(t.description),
      path: t.path.replace(/\{[^}]*\}/g, ' '),
      params: t.parameters.join(' '),
      kind: `${t.method} ${t.classification}`,
    })),
  );
  return {
    size: tools.length,
    search(query, limit) {
      implied = new Set();
      const said = PHRASES.reduce((q, [phrase, word]) => q.replace(phrase, word), query);
      const intent = intentOf(said);
      const hits = mini.search(said).map((h) => ({
        id: h.id as number,
        score: kinds[h.id]! === intent ? h.score * INTENT_BONUS : h.score,
      }));
      hits.sort((a, b) => b.score - a.score || compare(names[a.id]!, names[b.id]!));
      return hits.slice(0, limit).map((h) => ({ name: names[h.id]!, score: h.score }));
    },
  };
}

/** The first paragraph, at most 300 characters: what the operation does, before the details. */
function firstParagraph(description: string): string {
  const first = description.trim().split(/\n\s*\n/)[0] ?? '';
  return first.slice(0, 300);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
