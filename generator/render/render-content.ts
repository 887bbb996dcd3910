/**
 * Content files: frontmatter (schema key order, `enabled` always written so a reviewer can
 * flip it) fenced by `---`, then the body exactly as given. Widgets: the page verbatim and a
 * sidecar that is always written, because it is where the widget's `enabled` lives.
 */
import docSchema from '../../schemas/doc.schema.json' with { type: 'json' };
import promptSchema from '../../schemas/prompt.schema.json' with { type: 'json' };
import resourceSchema from '../../schemas/resource.schema.json' with { type: 'json' };
import skillSchema from '../../schemas/skill.schema.json' with { type: 'json' };
import { SvcError } from '../../core/svc-error.js';
import { ITEM_NAME, MAX_DOC_DEPTH } from '../../folder/content-paths.js';
import type { ContentItem, ContentItems, DocItem, FolderFiles, WidgetItem } from '../../folder/model.js';
import { orderKeys, type SchemaNode, sortKeysDeep } from './key-order.js';
import { yamlText } from './yaml-text.js';

interface Frontmatter {
  enabled?: boolean;
}

export function renderMarkdownItem(frontmatter: Frontmatter, body: string, schema: SchemaNode): string {
  const withEnabled = { ...frontmatter, enabled: frontmatter.enabled === true };
  return `---\n${yamlText(orderKeys(withEnabled, schema, schema))}---\n${body}`;
}

export function renderWidgetSidecar(sidecar: WidgetItem['sidecar']): string {
  return `${JSON.stringify(sortKeysDeep({ ...sidecar, enabled: sidecar.enabled === true }), null, 2)}\n`;
}

/** Every content item at its canonical path (capitalized directory, name from the model). */
export function renderContent(items: ContentItems): FolderFiles {
  const files: FolderFiles = {};
  const put = (path: string, text: string) => {
    if (path in files)
      throw new SvcError('CONTENT_INVALID', `two content items render to ${path}`, { place: { file: path } });
    files[path] = text;
  };
  const flat = (dir: string, list: ContentItem<Frontmatter>[], schema: unknown) => {
    for (const item of list) {
      checkName(item.name, `${dir}/${item.name}.md`);
      put(`${dir}/${item.name}.md`, renderMarkdownItem(item.frontmatter, item.body, schema as SchemaNode));
    }
  };
  flat('Skills', items.skills, skillSchema);
  flat('Prompts', items.prompts, promptSchema);
  flat('Resources', items.resources, resourceSchema);
  for (const doc of items.docs) {
    const path = `Docs/${doc.name}${docExtension(doc)}`;
    const segments = doc.name.split('/');
    if (segments.length - 1 > MAX_DOC_DEPTH) {
      throw new SvcError(
        'CONTENT_PATH_UNSAFE',
        `doc slug "${doc.name}" is deeper than ${MAX_DOC_DEPTH} directories`,
        {
          place: { file: path },
        },
      );
    }
    for (const s of segments) checkName(s, path);
    put(path, renderMarkdownItem(doc.frontmatter, doc.body, docSchema as SchemaNode));
  }
  for (const widget of items.widgets) {
    checkName(widget.name, `Widgets/${widget.name}.html`);
    put(`Widgets/${widget.name}.html`, widget.html);
    put(`Widgets/${widget.name}.json`, renderWidgetSidecar(widget.sidecar));
  }
  return files;
}

function docExtension(doc: DocItem): '.md' | '.mdx' {
  return doc.file.toLowerCase().endsWith('.mdx') ? '.mdx' : '.md';
}

/** The model may come from anywhere (a merge, a hand-built object): never render a name that escapes. */
function checkName(name: string, path: string): void {
  if (!ITEM_NAME.test(name)) {
    throw new SvcError('CONTENT_PATH_UNSAFE', `"${name}" is not a safe item name`, { place: { file: path } });
  }
}
