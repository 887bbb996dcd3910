/**
 * Content files (spec 2.5) → validated items. Shared by the importer (repository content,
 * where every item arrives disabled) and the folder loader (where `enabled` is the user's).
 * Paths here are already canonical: capitalized directory, '/' separators.
 */
import { SvcError, type SvcErrorCode } from '../core/svc-error.js';
import type { SchemaName } from '../schemas/validate.js';
import { firstHeading } from './doc-title.js';
import { definedOnly } from './error-place.js';
import { splitFrontmatter } from './frontmatter.js';
import { validateLocated } from './locate-violations.js';
import type { ContentItem, ContentItems, DocItem, WidgetItem } from './model.js';
import { parseYaml } from './yaml-file.js';

export {
  CONTENT_DIRS,
  type ContentDir,
  classifyContentPath,
  ITEM_NAME,
  MAX_DOC_DEPTH,
} from './content-paths.js';
import { type ContentDir, classifyContentPath, ITEM_NAME, MAX_DOC_DEPTH } from './content-paths.js';

export interface ContentEntry {
  path: string;
  text: string;
}

export interface ContentParseOptions {
  /** Code of a problem inside a file (frontmatter, schema). */
  code: SvcErrorCode;
  /** Code of a problem with a file's name or place. */
  pathCode: SvcErrorCode;
  /** Import: force every item's `enabled` to false (spec 2.5 rule 6). */
  disable: boolean;
}

function emptyItems(): ContentItems {
  return { skills: [], prompts: [], resources: [], docs: [], widgets: [] };
}

const SCHEMA_OF: Record<Exclude<ContentDir, 'Widgets'>, SchemaName> = {
  Skills: 'skill',
  Prompts: 'prompt',
  Resources: 'resource',
  Docs: 'doc',
};

export function parseContentEntries(
  entries: readonly ContentEntry[],
  opts: ContentParseOptions,
): { items: ContentItems; errors: SvcError[] } {
  const items = emptyItems();
  const errors: SvcError[] = [];
  const seen = new Map<string, string>();
  const widgetHtml = new Map<string, ContentEntry>();
  const widgetJson = new Map<string, ContentEntry>();

  for (const entry of [...entries].sort((a, b) => compare(a.path, b.path))) {
    const kind = classifyContentPath(entry.path);
    if (!kind) continue;
    if ('tooDeep' in kind) {
      errors.push(
        new SvcError(
          opts.pathCode,
          `Docs/ pages may be at most ${MAX_DOC_DEPTH} directories deep (spec 2.5 rule 3)`,
          {
            place: { file: entry.path },
          },
        ),
      );
      continue;
    }
    const badSegment = kind.name.split('/').find((s) => !ITEM_NAME.test(s));
    if (badSegment !== undefined) {
      errors.push(
        new SvcError(
          opts.pathCode,
          `"${badSegment}" is not a safe item name (letters, digits, ".", "_", "-"; 1-100)`,
          {
            place: { file: entry.path },
          },
        ),
      );
      continue;
    }
    if (kind.dir === 'Widgets') {
      (kind.ext === '.html' ? widgetHtml : widgetJson).set(kind.name, entry);
      continue;
    }
    const identity = `${kind.dir}/${kind.name}`;
    const clash = seen.get(identity);
    if (clash) {
      errors.push(
        new SvcError(opts.code, `two files define the same item "${kind.name}": ${clash} and ${entry.path}`, {
          place: { file: entry.path },
        }),
      );
      continue;
    }
    seen.set(identity, entry.path);
    const item = parseMarkdownItem(entry, kind.dir, kind.name, opts, errors);
    if (!item) continue;
    if (kind.dir === 'Skills') items.skills.push(item as ContentItem<never>);
    else if (kind.dir === 'Prompts') items.prompts.push(item as ContentItem<never>);
    else if (kind.dir === 'Resources') items.resources.push(item as ContentItem<never>);
    else {
      const fm = item.frontmatter as { title?: string };
      const doc: DocItem = {
        ...(item as unknown as DocItem),
        title: fm.title ?? firstHeading(item.body) ?? kind.name,
      };
      items.docs.push(doc);
    }
  }

  for (const [name, sidecar] of widgetJson) {
    if (!widgetHtml.has(name)) {
      errors.push(
        new SvcError(opts.code, `widget sidecar without its page: Widgets/${name}.html is missing`, {
          place: { file: sidecar.path },
        }),
      );
    }
  }
  for (const [name, html] of widgetHtml) {
    const widget = parseWidget(name, html, widgetJson.get(name), opts, errors);
    if (widget) items.widgets.push(widget);
  }

  sortItems(items);
  return { items, errors };
}

function parseMarkdownItem(
  entry: ContentEntry,
  dir: Exclude<ContentDir, 'Widgets'>,
  name: string,
  opts: ContentParseOptions,
  errors: SvcError[],
): ContentItem<Record<string, unknown>> | undefined {
  const split = splitFrontmatter(entry.text);
  if (!split.ok) {
    for (const p of split.problems) {
      errors.push(
        new SvcError(opts.code, `frontmatter: ${p.message}`, {
          place: definedOnly({ file: entry.path, line: p.line, column: p.column }),
        }),
      );
    }
    return undefined;
  }
  const checked = validateLocated(SCHEMA_OF[dir], split.data, split.parsed);
  if (!checked.ok) {
    for (const v of checked.violations) {
      errors.push(
        new SvcError(opts.code, `frontmatter ${v.field || '(root)'} ${v.message}`, {
          place: { file: entry.path, field: v.field, line: v.line ?? 1 },
        }),
      );
    }
    return undefined;
  }
  const frontmatter = withEnabled(checked.value as Record<string, unknown>, opts.disable);
  return { name, file: entry.path, frontmatter, body: split.body };
}

function parseWidget(
  name: string,
  html: ContentEntry,
  sidecarEntry: ContentEntry | undefined,
  opts: ContentParseOptions,
  errors: SvcError[],
): WidgetItem | undefined {
  const sidecarFile = `Widgets/${name}.json`;
  let raw: unknown = {};
  if (sidecarEntry) {
    try {
      raw = JSON.parse(sidecarEntry.text);
    } catch (e) {
      errors.push(
        new SvcError(opts.code, `sidecar is not valid JSON: ${(e as Error).message}`, {
          place: definedOnly({ file: sidecarFile, line: jsonErrorLine(sidecarEntry.text, e as Error) }),
        }),
      );
      return undefined;
    }
  }
  // JSON is YAML: read it once more as YAML only to point at the lines of its problems.
  const located = sidecarEntry ? parseYaml(sidecarEntry.text) : undefined;
  const checked = validateLocated('widget', raw, located?.ok ? located.parsed : undefined);
  if (!checked.ok) {
    for (const v of checked.violations) {
      errors.push(
        new SvcError(opts.code, `sidecar ${v.field || '(root)'} ${v.message}`, {
          place: definedOnly({ file: sidecarFile, field: v.field, line: v.line }),
        }),
      );
    }
    return undefined;
  }
  const sidecar = withEnabled(checked.value as Record<string, unknown>, opts.disable);
  return { name, file: html.path, sidecarFile, html: html.text.replace(/\r\n/g, '\n'), sidecar };
}

/** Default-deny: an item without `enabled` is disabled; an imported item is always disabled. */
function withEnabled<T extends Record<string, unknown>>(
  frontmatter: T,
  disable: boolean,
): T & { enabled: boolean } {
  const enabled = disable ? false : frontmatter.enabled === true;
  return { ...frontmatter, enabled };
}

function jsonErrorLine(text: string, e: Error): number | undefined {
  const m = /position (\d+)/.exec(e.message);
  if (!m) return undefined;
  return text.slice(0, Number(m[1])).split('\n').length;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byOrderThenName(
  a: { name: string; order: number | undefined },
  b: { name: string; order: number | undefined },
): number {
  const ao = a.order ?? Number.POSITIVE_INFINITY;
  const bo = b.order ?? Number.POSITIVE_INFINITY;
  if (ao !== bo) return ao < bo ? -1 : 1;
  return compare(a.name, b.name);
}

/** Content order: (sortOrder ?? +infinity, name); the same in the importer and the loader. */
export function sortItems(items: ContentItems): void {
  const key = <T extends { name: string }>(item: T, order: number | undefined) => ({
    name: item.name,
    order,
  });
  const fm = (i: { frontmatter: { sortOrder?: number } }) => i.frontmatter.sortOrder;
  items.skills.sort((a, b) => byOrderThenName(key(a, fm(a)), key(b, fm(b))));
  items.prompts.sort((a, b) => byOrderThenName(key(a, fm(a)), key(b, fm(b))));
  items.resources.sort((a, b) => byOrderThenName(key(a, fm(a)), key(b, fm(b))));
  items.docs.sort((a, b) => byOrderThenName(key(a, fm(a)), key(b, fm(b))));
  items.widgets.sort((a, b) => byOrderThenName(key(a, a.sidecar.sortOrder), key(b, b.sidecar.sortOrder)));
}
