/**
 * A provider change (spec 3.3) is destructive: the tools, the document and the import history
 * go, and so does the OAuth configuration, so that a `user_oauth` server fails closed until OAuth
 * is set up again. Content items and files svc does not manage stay. Pure: says what goes and
 * returns the files that remain, for the caller to write or to import into.
 */
import type { FolderFiles, FolderModel } from '../../folder/model.js';
import type { SvcConfig } from '../../schemas/types.js';
import { GITIGNORE_FILE, README_SIGNATURE, renderGitignore } from '../render/index.js';

export interface ProviderChangePlan {
  /** Files that stay: content items, a README of the user's, files svc does not manage. */
  kept: FolderFiles;
  /** Tool files that go. */
  tools: string[];
  /** How many import history records go. */
  imports: number;
  /** Whether an OAuth configuration is reset. */
  oauth: boolean;
}

/** Tools, bookkeeping and the files svc generates go; a README or .gitignore of the user's stays. */
function goes(path: string, text: string): boolean {
  if (path === 'README.md') return text.includes(README_SIGNATURE);
  // The .gitignore svc wrote goes as written; one the user edited stays.
  if (path === GITIGNORE_FILE) return text === renderGitignore();
  return (
    path.startsWith('Tools/') ||
    path.startsWith('.svc/') ||
    ['config.yaml', 'docker-compose.yml', '.env.example'].includes(path)
  );
}

/** The files a provider change keeps (those svc did not write); needs no loadable config. */
export function keptFiles(files: FolderFiles): FolderFiles {
  const kept: FolderFiles = {};
  for (const [path, text] of Object.entries(files)) if (!goes(path, text)) kept[path] = text;
  return kept;
}

export function planProviderChange(files: FolderFiles, folder: FolderModel): ProviderChangePlan {
  return {
    kept: keptFiles(files),
    tools: folder.tools.map((t) => t.file).sort(),
    imports: Object.keys(files).filter((p) => /^\.svc\/history\/[^/]+\.json$/.test(p)).length,
    oauth: folder.config.oauth !== undefined,
  };
}

/** The lines that say what a provider change deletes, before it is confirmed. */
export function describeProviderChange(plan: ProviderChangePlan, from: string, to: string): string[] {
  return [
    `Changing the provider from ${from} to ${to} deletes:`,
    `  - ${plan.tools.length} tool${plan.tools.length === 1 ? '' : 's'} (Tools/), with every enabled flag and customization`,
    `  - the import history (${plan.imports} import${plan.imports === 1 ? '' : 's'}, .svc/)`,
    ...(plan.oauth
      ? ['  - the OAuth configuration (config.yaml `oauth`): user_oauth fails closed until it is set again']
      : []),
    'Content items (Skills/, Prompts/, Widgets/, Resources/, Docs/) and files svc does not manage stay.',
  ];
}

/** A config with the OAuth configuration reset (spec 3.3: re-provisioned servers have none). */
export function withoutOAuth(config: SvcConfig): SvcConfig {
  const { oauth: _oauth, ...rest } = config;
  return rest;
}

/** A branch folder of an app-builder app, for `describeAppChange`. */
export interface BranchChange {
  /** The folder's name (`live`, `main`, `version-<id>`). */
  name: string;
  plan: ProviderChangePlan;
}

/**
 * The lines that say what a provider change of a whole app-builder app deletes: svc's files in
 * every branch folder go, the new server takes the app folder's place, and the content items and
 * files of the user in the primary branch folder move there (those of the other branch folders
 * stay where they are: svc never deletes a file it did not write).
 */
export function describeAppChange(
  appLabel: string,
  branches: readonly BranchChange[],
  primary: string,
  from: string,
  to: string,
): string[] {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const lines = [
    `Changing the provider from ${from} to ${to} replaces the whole app in ${appLabel}; it deletes:`,
    ...branches.map(
      (b) =>
        `  - the branch folder ${b.name}/: its config, ${plural(b.plan.tools.length, 'tool')}, with every enabled flag and customization, and the import history (${plural(b.plan.imports, 'import')})`,
    ),
  ];
  for (const b of branches) {
    const user = Object.keys(b.plan.kept).sort();
    if (b.name !== primary && user.length > 0)
      lines.push(`  Your files in ${b.name}/ stay there: ${user.join(', ')}`);
  }
  if (branches.some((b) => b.plan.oauth)) {
    lines.push(
      '  - the OAuth configuration (config.yaml `oauth`): user_oauth fails closed until it is set again',
    );
  }
  lines.push(
    `The new server is ${appLabel} itself; content items and your own files of ${primary}/ move there (those whose name is taken there stay), and nothing else in ${appLabel} is touched. svc deletes only the files it wrote.`,
  );
  return lines;
}
