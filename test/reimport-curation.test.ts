/**
 * Issue 9, "curation survives": a GitHub folder (@octokit/openapi 22.0.0) carrying a catalogue
 * of hand edits of every kind is re-imported from the unchanged document, then upgraded to the
 * installed release (23.x). Every edit survives, or the report names the tool, the field, the
 * old and new value and why. Real documents, real folder on disk, the import `svc import` runs.
 */
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readFolder } from '../folder/index.js';
import type { FolderFiles } from '../folder/model.js';
import { type ImportResult, importFolder } from '../generator/import/index.js';
import { renderReportMarkdown } from '../generator/report/index.js';
import type { CustomizationReset, SvcConfig, SvcTool } from '../schemas/types.js';
import { GITHUB_INSTALLED, readGithub22 } from './helpers/github-documents.js';

const newer = GITHUB_INSTALLED;

const DELETE = Symbol('delete');
type Outcome = 'survives' | 'reset' | 'kept';

/** One hand edit: a value written at a path of a tool file (or the key deleted). */
interface Edit {
  key: string;
  path: string[];
  value: unknown;
  /** What the upgrade to 23.x must do with it. */
  upgrade: Outcome;
  why: string;
}

const CATALOGUE: Edit[] = [
  // pulls_list: an endpoint 23.x leaves as it is.
  { key: 'pulls_list', path: ['enabled'], value: true, upgrade: 'survives', why: 'enabled' },
  { key: 'pulls_list', path: ['sortOrder'], value: 5000, upgrade: 'survives', why: 'sort order' },
  { key: 'pulls_list', path: ['name'], value: 'list_pull_requests', upgrade: 'survives', why: 'rename' },
  {
    key: 'pulls_list',
    path: ['description'],
    value: 'List the pull requests of a repository.',
    upgrade: 'survives',
    why: 'tool description',
  },
  { key: 'pulls_list', path: ['title'], value: 'Pull requests', upgrade: 'survives', why: 'title added' },
  { key: 'pulls_list', path: ['annotations', 'title'], value: 'PRs', upgrade: 'survives', why: 'annotation' },
  {
    key: 'pulls_list',
    path: ['annotations', 'openWorldHint'],
    value: false,
    upgrade: 'survives',
    why: 'annotation hint',
  },
  {
    key: 'pulls_list',
    path: ['inputSchema', 'properties', 'per_page', 'description'],
    value: 'How many pull requests per page.',
    upgrade: 'survives',
    why: 'parameter description',
  },
  {
    key: 'pulls_list',
    path: ['inputSchema', 'properties', 'per_page', 'default'],
    value: 50,
    upgrade: 'survives',
    why: 'changed default',
  },
  {
    key: 'pulls_list',
    path: ['inputSchema', 'properties', 'direction'],
    value: DELETE,
    upgrade: 'survives',
    why: 'removed optional parameter',
  },
  {
    key: 'pulls_list',
    path: ['locations', 'direction'],
    value: DELETE,
    upgrade: 'survives',
    why: 'its location',
  },
  {
    key: 'pulls_list',
    path: ['inputSchema', 'properties', 'state', 'enum'],
    value: ['open', 'closed'],
    upgrade: 'survives',
    why: 'narrowed enum',
  },
  {
    key: 'pulls_list',
    path: ['locations', 'sort'],
    value: { in: 'query', name: 'sort', explode: false },
    upgrade: 'survives',
    why: 'edited location',
  },
  {
    key: 'pulls_list',
    path: ['inputSchema', 'properties', 'x_trace'],
    value: { type: 'string', description: 'Trace id for our proxy.' },
    upgrade: 'survives',
    why: 'added property',
  },
  {
    key: 'pulls_list',
    path: ['locations', 'x_trace'],
    value: { in: 'header', name: 'X-Trace' },
    upgrade: 'survives',
    why: "added property's location",
  },
  // enterprise-teams_get: 23.x adds a response property (not breaking).
  {
    key: 'enterprise-teams_get',
    path: ['description'],
    value: 'Get one enterprise team.',
    upgrade: 'survives',
    why: 'description beside an added response property',
  },
  {
    key: 'enterprise-teams_get',
    path: ['outputSchema', 'properties', 'name', 'description'],
    value: 'Display name of the team.',
    upgrade: 'survives',
    why: 'output schema description',
  },
  {
    key: 'enterprise-teams_get',
    path: ['outputSchema', 'properties', 'group_name'],
    value: DELETE,
    upgrade: 'survives',
    why: 'output schema property removed',
  },
  // issues_create: a body property.
  {
    key: 'issues_create',
    path: ['inputSchema', 'properties', 'title', 'description'],
    value: 'A short title.',
    upgrade: 'survives',
    why: 'body property description',
  },
  // code-security_detach-configuration: 23.x makes the removed parameter required.
  {
    key: 'code-security_detach-configuration',
    path: ['inputSchema', 'properties', 'selected_repository_ids'],
    value: DELETE,
    upgrade: 'reset',
    why: 'removed a parameter that becomes required',
  },
  // dependabot_update-alert: 23.x drops the parameter the user documented.
  {
    key: 'dependabot_update-alert',
    path: ['inputSchema', 'properties', 'state', 'description'],
    value: 'Open or dismissed.',
    upgrade: 'reset',
    why: 'edited a parameter that disappears',
  },
  // classroom_get-an-assignment: 23.x rewrites the description the user rewrote too.
  {
    key: 'classroom_get-an-assignment',
    path: ['description'],
    value: 'Read one Classroom assignment.',
    upgrade: 'kept',
    why: 'description both sides changed',
  },
  // teams_list-discussions-in-org: enabled and renamed; 23.x removes the endpoint.
  {
    key: 'teams_list-discussions-in-org',
    path: ['enabled'],
    value: true,
    upgrade: 'survives',
    why: 'enabled',
  },
  {
    key: 'teams_list-discussions-in-org',
    path: ['name'],
    value: 'team_discussions',
    upgrade: 'survives',
    why: 'rename of a tool whose endpoint goes',
  },
];

function get(value: unknown, keys: readonly string[]): unknown {
  let v = value;
  for (const k of keys) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

function set(value: Record<string, unknown>, keys: readonly string[], to: unknown): void {
  let v = value;
  for (const k of keys.slice(0, -1)) v = v[k] as Record<string, unknown>;
  const last = keys[keys.length - 1]!;
  if (to === DELETE) delete v[last];
  else v[last] = structuredClone(to);
}

function toolOf(files: FolderFiles, key: string): SvcTool {
  const text = files[`Tools/${key}.yaml`];
  if (text === undefined) throw new Error(`no Tools/${key}.yaml`);
  return parse(text) as SvcTool;
}

function holds(files: FolderFiles, edit: Edit): boolean {
  const now = get(toolOf(files, edit.key), edit.path);
  return edit.value === DELETE ? now === undefined : JSON.stringify(now) === JSON.stringify(edit.value);
}

/** The report entry naming this edit's field (or a field that contains it). */
function entryFor(list: readonly CustomizationReset[] | undefined, edit: Edit) {
  const field = edit.path.join('.');
  for (const r of list ?? []) {
    if (r.key !== edit.key) continue;
    const change = r.changes.find((c) => field === c.field || field.startsWith(`${c.field}.`));
    if (change) return { entry: r, change };
  }
  return undefined;
}

const now = () => new Date(Date.UTC(2026, 10, 23, 12, 0, 0));

describe.skipIf(!existsSync(newer))('hand edits across re-imports of GitHub (22.0.0 → 23.x)', () => {
  let root: string;
  let dir: string;
  let edited: FolderFiles;
  let unchanged: ImportResult;
  let afterUnchanged: FolderFiles;
  let upgrade: ImportResult;
  let afterUpgrade: FolderFiles;
  let legacy: ImportResult;
  let afterLegacy: FolderFiles;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'svc-curation-'));
    await writeFile(path.join(root, 'gh22.json'), await readGithub22());
    await copyFile(newer, path.join(root, 'gh23.json'));
    dir = path.join(root, 'github');
    const config: SvcConfig = {
      schemaVersion: 1,
      server: { id: 'github', name: 'Default', published: false },
      app: { name: 'GitHub', provider: 'openapi' },
      source: { kind: 'openapi', location: '../gh22.json' },
      auth: { mode: 'none', hasAuthSecret: false },
      apiBaseUrl: '',
      requiredEnv: [],
    };
    const first = await importFolder({ dir, config, now });
    expect(first.status).toBe('complete');

    const byKey = new Map<string, Edit[]>();
    for (const e of CATALOGUE) byKey.set(e.key, [...(byKey.get(e.key) ?? []), e]);
    for (const [key, edits] of byKey) {
      const file = path.join(dir, 'Tools', `${key}.yaml`);
      const tool = parse(await readFile(file, 'utf8')) as Record<string, unknown>;
      for (const e of edits) set(tool, e.path, e.value);
      if (key === 'pulls_list') {
        // Reordered keys: the reviewer put `state` and `per_page` first.
        const props = get(tool, ['inputSchema', 'properties']) as Record<string, unknown>;
        const { state, per_page, ...rest } = props;
        (tool.inputSchema as Record<string, unknown>).properties = { state, per_page, ...rest };
      }
      // The hand-edit of the `required` list that goes with a removed parameter.
      const required = get(tool, ['inputSchema', 'required']);
      const props = get(tool, ['inputSchema', 'properties']) as Record<string, unknown>;
      if (Array.isArray(required)) {
        (tool.inputSchema as Record<string, unknown>).required = required.filter((n) => n in props);
      }
      for (const name of Object.keys((tool.locations as Record<string, unknown>) ?? {})) {
        if (!(name in props)) delete (tool.locations as Record<string, unknown>)[name];
      }
      await writeFile(file, `# reviewed by hand\n${stringify(tool)}`);
    }
    edited = await readFolder(dir);
    // The same folder as an older svc left it: no stored merge bases.
    const legacyDir = path.join(root, 'legacy');
    await cp(dir, legacyDir, { recursive: true });
    await rm(path.join(legacyDir, '.svc', 'generated.json'));
    legacy = await importFolder({ dir: legacyDir, now });
    afterLegacy = await readFolder(legacyDir);

    unchanged = await importFolder({ dir, now });
    afterUnchanged = await readFolder(dir);
    upgrade = await importFolder({ dir, location: '../gh23.json', now });
    afterUpgrade = await readFolder(dir);
  }, 600_000);

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('an unchanged re-import keeps every edit, byte for byte, and reports nothing', () => {
    expect(unchanged.status).toBe('complete');
    expect(unchanged.changed).toBe(false);
    for (const e of CATALOGUE) expect([e.key, e.why, holds(afterUnchanged, e)]).toEqual([e.key, e.why, true]);
    for (const [p, text] of Object.entries(edited)) {
      if (!p.startsWith('.svc/')) expect([p, afterUnchanged[p] === text]).toEqual([p, true]);
    }
    expect(unchanged.report.tools.customizationsReset).toEqual([]);
    expect(unchanged.report.tools.customizationsKept ?? []).toEqual([]);
    expect(unchanged.report.warnings).toEqual([]);
  });

  it('a folder from before stored merge bases keeps every edit too (bases made again from its endpoints)', () => {
    expect(legacy.status).toBe('complete');
    expect(legacy.changed).toBe(false);
    for (const e of CATALOGUE) expect([e.key, e.why, holds(afterLegacy, e)]).toEqual([e.key, e.why, true]);
    expect(legacy.report.tools.customizationsReset).toEqual([]);
    expect(afterLegacy['.svc/generated.json']).toBe(edited['.svc/generated.json']);
  });

  it('the upgrade keeps every edit it leaves valid, including key order', () => {
    expect(upgrade.status).toBe('complete');
    for (const e of CATALOGUE.filter((x) => x.upgrade !== 'reset')) {
      expect([e.key, e.why, holds(afterUpgrade, e)]).toEqual([e.key, e.why, true]);
    }
    const pulls = toolOf(afterUpgrade, 'pulls_list');
    expect(Object.keys(pulls.inputSchema.properties as object).slice(0, 2)).toEqual(['state', 'per_page']);
    // The reviewer's comment (and layout) survive where the merge changed the file.
    for (const key of new Set(CATALOGUE.map((e) => e.key))) {
      expect([key, afterUpgrade[`Tools/${key}.yaml`]?.startsWith('# reviewed by hand\n')]).toEqual([
        key,
        true,
      ]);
    }
    // The response gained a property: the tool has it, and the edited description stayed.
    const team = toolOf(afterUpgrade, 'enterprise-teams_get');
    expect(Object.keys(team.outputSchema?.properties as object)).toContain('notification_setting');
  });

  it('the upgrade reports each edit it makes wrong: tool, field, old and new value, why', () => {
    for (const e of CATALOGUE.filter((x) => x.upgrade === 'reset')) {
      const found = entryFor(upgrade.report.tools.customizationsReset, e);
      expect([e.key, e.why, found !== undefined]).toEqual([e.key, e.why, true]);
      expect(found!.change.reason).not.toBe('');
      expect(holds(afterUpgrade, e)).toBe(false);
    }
    const restored = entryFor(
      upgrade.report.tools.customizationsReset,
      CATALOGUE.find((e) => e.why.includes('required'))!,
    );
    expect(restored!.change).toMatchObject({
      field: 'inputSchema.properties.selected_repository_ids',
      reason: 'the API now requires this parameter',
    });
    expect(restored!.change.current).toMatchObject({ type: 'array' });
    const gone = entryFor(
      upgrade.report.tools.customizationsReset,
      CATALOGUE.find((e) => e.why.includes('disappears'))!,
    );
    expect(gone!.change).toMatchObject({
      field: 'inputSchema.properties.state',
      reason: 'the API no longer has this parameter',
    });
    expect(get(gone!.change.previous, ['description'])).toBe('Open or dismissed.');
  });

  it('a description both sides changed keeps the user’s words and says what upstream did', () => {
    const e = CATALOGUE.find((x) => x.upgrade === 'kept')!;
    const found = entryFor(upgrade.report.tools.customizationsKept, e);
    expect(found!.change.field).toBe('description');
    expect(found!.change.current).not.toBe(found!.change.previous);
    expect(typeof found!.change.current).toBe('string');
  });

  it('every edit either survives or is reported', () => {
    for (const e of CATALOGUE) {
      const reported =
        entryFor(upgrade.report.tools.customizationsReset, e) ??
        entryFor(upgrade.report.tools.customizationsKept, e);
      expect([e.key, e.why, holds(afterUpgrade, e) || reported !== undefined]).toEqual([e.key, e.why, true]);
    }
  });

  it('stores each raw document once and keeps a no-op record small', () => {
    const specs = (files: FolderFiles) => Object.keys(files).filter((p) => p.startsWith('.svc/specs/'));
    // The current document is Tools/openapi.json; .svc/specs/ holds only the ones it replaced.
    expect(specs(edited)).toEqual([]);
    expect(specs(afterUnchanged)).toEqual([]);
    expect(specs(afterUpgrade).map((p) => afterUpgrade[p])).toEqual([edited['Tools/openapi.json']]);
    const record = (files: FolderFiles, seq: number) => files[`.svc/history/00000${seq}.json`] ?? '';
    expect(record(afterUnchanged, 2).length).toBeLessThan(4096);
    expect(JSON.parse(record(afterUnchanged, 2))).toMatchObject({ changed: false, endpointsOf: 1 });
    expect(afterUpgrade['.svc/generated.json']).toBeDefined();
  });

  it('an enabled tool keeps its name; when its endpoint is gone the report says so at the top', () => {
    const gone = toolOf(afterUpgrade, 'teams_list-discussions-in-org');
    expect(gone).toMatchObject({ name: 'team_discussions', enabled: true, stale: true });
    expect(toolOf(afterUpgrade, 'pulls_list').name).toBe('list_pull_requests');
    const md = renderReportMarkdown(upgrade.report);
    const enabled = md.indexOf('### Enabled tools');
    expect(enabled).toBeGreaterThan(0);
    expect(enabled).toBeLessThan(md.indexOf('### Endpoints'));
    const section = md.slice(enabled, md.indexOf('\n### ', enabled + 1));
    expect(section).toContain('**Endpoint gone** `team_discussions`');
    expect(section).not.toContain('<details>');
    // Disabled tools' resets are listed after, in the tools section.
    expect(md.slice(md.indexOf('### Tools'))).toContain('`code-security_detach-configuration`');
  });
});
