/**
 * `npm start`: the whole product on an embedded default. It imports the Bookshelf demo API
 * (fixtures/demo/openapi.yaml) with the sample content directory into a folder, enables
 * everything (a user would do that by editing YAML), starts the demo upstream on loopback
 * and serves the folder as an MCP server.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import { writeFolder } from '../../folder/index.js';
import type { FolderFiles, FolderModel } from '../../folder/model.js';
import { importFolder } from '../../generator/import/index.js';
import { initialConfig } from '../../generator/init/index.js';
import { renderFolder } from '../../generator/render/index.js';
import { openFolder } from '../../folder/open-folder.js';
import { packageRoot } from '../../core/package-root.js';
import { formatChecklist } from '../print-checklist.js';
import { type RunningApi, startBookshelfApi } from './bookshelf-api.js';

export const DEMO_APP_NAME = 'Bookshelf demo';

export interface DemoFolder {
  dir: string;
  api: RunningApi;
  checklist: string;
}

/** Imports the demo into `dir` (replacing an earlier demo there) against a fresh upstream. */
export async function prepareDemo(dir: string): Promise<DemoFolder> {
  removeEarlierDemo(dir);
  const api = await startBookshelfApi();
  try {
    const root = packageRoot();
    const relative = (p: string) => path.relative(dir, path.join(root, p)).split(path.sep).join('/');
    const config = initialConfig({
      name: DEMO_APP_NAME,
      serverId: 'bookshelf',
      openapi: relative('fixtures/demo/openapi.yaml'),
      contentDir: relative('fixtures/content'),
      baseUrl: api.url,
      description: 'The demo of svc: a small bookshelf API served as an MCP server.',
    });
    const result = await importFolder({ dir, config });
    if (result.status === 'failed') throw result.error ?? new SvcError('INTERNAL', 'the demo import failed');
    const opened = await openFolder('/', dir);
    await writeFolder(dir, enableEverything(opened.files, opened.folder));
    return { dir, api, checklist: formatChecklist(result.checklist) };
  } catch (error) {
    await api.close();
    throw error;
  }
}

function removeEarlierDemo(dir: string): void {
  let config: string;
  try {
    config = readFileSync(path.join(dir, 'config.yaml'), 'utf8');
  } catch {
    return;
  }
  // Never delete a folder the demo did not make.
  if (!config.includes(`name: ${DEMO_APP_NAME}`)) {
    throw new SvcError(
      'FOLDER_EXISTS',
      `${dir} holds a server folder that is not the demo; choose another directory`,
      {
        place: { file: path.join(dir, 'config.yaml') },
      },
    );
  }
  rmSync(dir, { recursive: true, force: true });
}

function enableEverything(files: FolderFiles, folder: FolderModel): FolderFiles {
  const on = <T extends { frontmatter: { enabled?: boolean } }>(items: T[]) =>
    items.map((item) => ({ ...item, frontmatter: { ...item.frontmatter, enabled: true } }));
  const enabled: FolderModel = {
    ...folder,
    tools: folder.tools.map((t) => ({ ...t, tool: { ...t.tool, enabled: true } })),
    skills: on(folder.skills),
    prompts: on(folder.prompts),
    resources: on(folder.resources),
    docs: on(folder.docs),
    widgets: folder.widgets.map((w) => ({ ...w, sidecar: { ...w.sidecar, enabled: true } })),
  };
  const openapi = files['Tools/openapi.json'];
  const bookkeeping = Object.fromEntries(Object.entries(files).filter(([p]) => p.startsWith('.svc/')));
  return { ...renderFolder(enabled, openapi === undefined ? {} : { openapi }), ...bookkeeping };
}
