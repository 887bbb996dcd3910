/**
 * The one import orchestrator, for a first import (`svc init`) and every re-import
 * (`svc import`, `svc diff`): read the folder → read and parse the source → endpoints → tools
 * → content → merge → render → diff against the previous import → report → history → write.
 *
 * Fail closed: a failed import writes nothing but its history record (and a failed first
 * import writes nothing at all). Idempotent: the same source again changes no file but the
 * history. Deterministic: the clock is injected; everything else comes from the inputs.
 */
import { isAbsolute, resolve } from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import { isManagedPath, loadFolder, readFolder, writeFolder } from '../../folder/index.js';
import { toolsListCost } from '../../folder/tools-list-cost.js';
import type { ContentItems, FolderFiles, FolderModel } from '../../folder/model.js';
import type { Endpoint, HistoryRecord, ImportReport, SvcConfig } from '../../schemas/types.js';
import { sameJson } from '../../core/canonical-json.js';
import { parseContent } from '../content/index.js';
import { diffEndpoints, diffOptionsOf, webhookChanges } from '../diff/index.js';
import { endpointMatchKey } from '../diff/endpoint-key.js';
import { toEndpoints, toWebhooks } from '../endpoints/index.js';
import {
  FOLDER_DOCUMENT,
  historyPath,
  isBookkeeping,
  lastComplete,
  loadEndpoints,
  nextBookkeeping,
  nextSeq,
  readGenerated,
  readHistory,
  renderGenerated,
  readWritten,
  sha256Hex,
  WRITTEN_FILE,
} from '../history/index.js';
import { authWarning, declaredSchemes } from '../init/auth-suggestion.js';
import { keepUserFiles } from '../init/keep-user-files.js';
import { contentHashes, derivedBases, firstReleaseTools, mergeImport } from '../merge/index.js';
import { defaultBaseUrl, parseDocument } from '../parse/index.js';
import {
  GITIGNORE_FILE,
  OPENAPI_FILE,
  README_SIGNATURE,
  renderFolder,
  renderGitignore,
  renderFolderChecked,
  renderTool,
} from '../render/index.js';
import { buildReport } from '../report/index.js';
import { readContentDir } from '../sources/content-source.js';
import { apiBaseUrlOf, swaggerUrlOf } from '../sources/app-builder-urls.js';
import { type BuildToolsOptions, buildTools, loadHtmlToMarkdown, mayContainHtml } from '../tools/index.js';
import { appendRecord } from './append-record.js';
import { confinePath, repositoryRoot } from '../sources/confine-paths.js';
import { patchYaml } from './patch-yaml.js';
import { recordableLocation } from './recordable-location.js';
import { type GitAccess, planSource, type SourcePlan, type SourceRead } from './source-reader.js';
import { Checklist, type ChecklistKind, type ChecklistRow, checklistKindOfPath } from './checklist.js';

export interface ImportOptions {
  /** The server folder (may not exist yet for a first import). */
  dir: string;
  /** First import: the config the CLI built; re-import: omitted → read from the folder. */
  config?: SvcConfig;
  /** Override the document location (--openapi): URL, absolute path, or a path relative to `dir`. */
  location?: string;
  /** Override the content directory (absolute, or relative to `dir`); else config.source.contentDir. */
  contentDir?: string;
  allowExternalRefs?: boolean;
  /**
   * svc init --force: the files already in the folder, which svc did not write. Each is written back as it
   * is and wins over a generated file of the same path (`keptUserFiles` in the result names those).
   */
  userFiles?: FolderFiles;
  /** --compact: short descriptions from now on (recorded in config.yaml, so later imports keep it). */
  compact?: boolean;
  /** svc diff: compute everything, write nothing. */
  dryRun?: boolean;
  /** App-builder sources without `platformOrigin`: the platform origin template (SVC_APP_BUILDER_ORIGIN). */
  appBuilderOrigin?: string;
  /** Git sources: read this commit instead of the branch head (svc diff --ref). */
  ref?: string;
  /**
   * Git and raw-URL sources: the token (never written anywhere) and where fetched repositories
   * are cached (outside the folder).
   */
  git?: GitAccess;
  /**
   * Where the paths config.yaml names must stay (after symbolic links): by default the git work
   * tree holding `dir`; false for none. A control-service job names its scratch copy of the tree.
   */
  confineTo?: string | false;
  /** Injectable clock for deterministic tests. */
  now?: () => Date;
  onProgress?: (rows: ChecklistRow[]) => void;
}

export interface ImportResult {
  status: 'complete' | 'failed';
  /** Whether any file outside .svc/ changed (or would change, for a dry run). */
  changed: boolean;
  report: ImportReport;
  checklist: ChecklistRow[];
  error?: SvcError;
  /**
   * What is on disk after the import. For a dry run: the folder as it would be, with .svc/ as it
   * is plus the record (the endpoint store is not computed).
   */
  files: FolderFiles;
  /** With `userFiles`: generated paths left out because a file of the user's was kept there. */
  keptUserFiles?: string[];
  /** The history record appended (absent when nothing could be recorded). */
  record?: HistoryRecord;
  /** auth: none for a document that declares security schemes: what to say and suggest. */
  authWarning?: string;
  /**
   * What the import could not carry over whole, one line each: a tool whose input schema reached
   * INPUT_DEFS_LIMIT, a description kept as plain text because it could not be converted.
   */
  warnings?: string[];
}

const CONTENT_ROWS: ChecklistKind[] = ['resources', 'skills', 'prompts', 'widgets', 'docs'];

class StepFailure extends Error {
  constructor(
    readonly step: ChecklistKind,
    readonly error: SvcError,
  ) {
    super(error.message);
  }
}

function asSvcError(error: unknown): SvcError {
  if (error instanceof SvcError) return error;
  if (error instanceof StepFailure) return error.error;
  const message = error instanceof Error ? error.message : String(error);
  return new SvcError('INTERNAL', `unexpected error during import: ${message}`, { cause: error });
}

function contentRowsOf(items: ContentItems): Record<ChecklistKind, number> {
  return {
    tools: 0,
    resources: items.resources.length,
    skills: items.skills.length,
    prompts: items.prompts.length,
    widgets: items.widgets.length,
    docs: items.docs.length,
  };
}

function failureReport(location: string, error: SvcError): ImportReport {
  return {
    schemaVersion: 1,
    changed: false,
    summary: `Import failed (${error.code}): ${error.message}`,
    source: { location },
    counts: {
      endpoints: { before: 0, after: 0, added: 0, removed: 0, changed: 0, unchanged: 0, breaking: 0 },
      tools: { total: 0, enabled: 0, added: 0, removed: 0, stale: 0, customizationsReset: 0 },
      content: { added: 0, updated: 0, skipped: 0, removed: 0 },
      warnings: 0,
    },
    endpoints: [],
    tools: { added: [], removed: [], stale: [], customizationsReset: [] },
    content: [],
    warnings: [],
  };
}

function notVerified(dir: string): SvcError {
  return new SvcError(
    'NOT_VERIFIED',
    'this app-builder app is not verified yet: publish the verification page, then run `svc verify` (it prints the token)',
    { place: { file: `${dir}/config.yaml`, field: 'source.verified' } },
  );
}

function firstLine(error: SvcError): string {
  const where = error.where();
  return `${error.code}: ${where ? `${where}: ` : ''}${error.message}`;
}

export async function runImport(opts: ImportOptions): Promise<ImportResult> {
  const now = opts.now ?? (() => new Date());
  const statusLog: HistoryRecord['statusLog'] = [{ status: 'pending', at: now().toISOString() }];
  let previousFiles: FolderFiles | undefined;
  let previous: FolderModel | undefined;
  let location = opts.location ?? '';
  let contentDir: string | undefined;
  let checklist = new Checklist(false, opts.onProgress);

  // Records a failure (when there is a folder to record it in) and returns the failed result.
  const failed = async (error: SvcError, step: ChecklistKind): Promise<ImportResult> => {
    checklist.fail(step, firstLine(error));
    const report = failureReport(recordableLocation(location), error);
    if (!previousFiles) {
      return { status: 'failed', changed: false, report, checklist: checklist.snapshot(), error, files: {} };
    }
    statusLog.push({ status: 'failed', at: now().toISOString() });
    let records: HistoryRecord[] = [];
    try {
      records = readHistory(previousFiles);
    } catch {
      // An unreadable history must not hide the import's own error; number after the files present.
      records = [];
    }
    const seq = Math.max(
      nextSeq(records),
      Object.keys(previousFiles).filter((p) => p.startsWith('.svc/history/')).length + 1,
    );
    const record: HistoryRecord = {
      schemaVersion: 1,
      seq,
      status: 'failed',
      statusLog,
      source: { location: recordableLocation(location), ...(contentDir ? { contentDir } : {}) },
      changed: false,
      summary: report.summary,
      error: { code: error.code, message: error.message, step },
    };
    const book = nextBookkeeping({ previous: previousFiles, record });
    const files: FolderFiles = {};
    for (const [p, t] of Object.entries(previousFiles))
      if (isManagedPath(p) && !isBookkeeping(p)) files[p] = t;
    Object.assign(files, book.files);
    if (!opts.dryRun) {
      try {
        const path = historyPath(book.record.seq);
        await appendRecord(opts.dir, path, book.files[path]!);
      } catch {
        // The import already failed; not being able to record it changes nothing on disk.
      }
    }
    return {
      status: 'failed',
      changed: false,
      report,
      checklist: checklist.snapshot(),
      error,
      files,
      record: book.record,
    };
  };

  // 1. The previous folder (re-import) or the given config (first import).
  let config: SvcConfig;
  try {
    if (opts.config) {
      config = opts.config;
    } else {
      previousFiles = await readFolder(opts.dir);
      const loaded = loadFolder(previousFiles);
      if (!loaded.ok) {
        const first = loaded.errors[0]!;
        throw new SvcError('FOLDER_INVALID', `the server folder is not valid: ${first.message}`, {
          place: first.place,
          details: loaded.errors.slice(1).map((e) => e.describe()),
        });
      }
      previous = loaded.folder;
      config = previous.config;
    }
  } catch (error) {
    return failed(asSvcError(error), 'tools');
  }

  if (opts.compact && config.compact !== true) config = { ...config, compact: true };
  const source = config.source;
  if (source.kind === 'app_builder') {
    // Spec 3.2: an app-builder app imports only once its ownership is verified. Refused before
    // anything is read, and not recorded: nothing was attempted.
    if (source.verified !== true) {
      const error = notVerified(opts.dir);
      checklist.fail('tools', firstLine(error));
      const report = failureReport(location, error);
      return {
        status: 'failed',
        changed: false,
        report,
        checklist: checklist.snapshot(),
        error,
        files: previousFiles ?? {},
      };
    }
    const place = { ...source, platformOrigin: source.platformOrigin ?? opts.appBuilderOrigin };
    if (!location) location = swaggerUrlOf(place);
    // Spec 4.5.5: an app-builder app has no base URL of its own; it follows the app id, the
    // branch and the custom domain, so editing `customDomain` moves both on the next import.
    config = { ...config, apiBaseUrl: apiBaseUrlOf(place) };
  }
  let plan: SourcePlan;
  try {
    plan = planSource(source, {
      dir: opts.dir,
      ...(location ? { location } : {}),
      ...(opts.contentDir !== undefined ? { contentDir: opts.contentDir } : {}),
      ...(opts.ref !== undefined ? { ref: opts.ref } : {}),
      ...(opts.git ? { git: opts.git } : {}),
    });
  } catch (error) {
    return failed(asSvcError(error), 'tools');
  }
  location = plan.location;
  contentDir = plan.contentDir;
  checklist = new Checklist(contentDir !== undefined, opts.onProgress);
  if (plan.toolsOnly) {
    checklist.note('resources', 'tools only: a raw URL cannot list content directories (spec 2.5 rule 9)');
  }
  if (!location) {
    return failed(
      new SvcError(
        'USAGE',
        `this server's source (${source.kind}) has no OpenAPI document to import; give --openapi`,
      ),
      'tools',
    );
  }
  // A source given on the command line becomes the folder's source, so that a later plain
  // `svc import` reads the same document (a URL carrying credentials is not written down).
  if (previous && source.kind === 'openapi') {
    const given: Partial<typeof source> = {};
    if (
      opts.location &&
      opts.location !== source.location &&
      recordableLocation(opts.location) === opts.location
    )
      given.location = opts.location;
    if (opts.contentDir !== undefined && opts.contentDir !== source.contentDir)
      given.contentDir = opts.contentDir;
    if (Object.keys(given).length > 0) config = { ...config, source: { ...source, ...given } };
  }
  // Paths written in a config.yaml that came from the repository stay inside it.
  const root = opts.confineTo ?? repositoryRoot(opts.dir);
  if (root && !opts.config && source.kind === 'openapi') {
    try {
      if (!opts.location && source.location && !/^https?:\/\//i.test(source.location))
        await confinePath({ root, dir: opts.dir, value: source.location, field: 'source.location' });
      if (opts.contentDir === undefined && source.contentDir !== undefined)
        await confinePath({ root, dir: opts.dir, value: source.contentDir, field: 'source.contentDir' });
    } catch (error) {
      return failed(asSvcError(error), 'tools');
    }
  }
  statusLog.push({ status: 'processing', at: now().toISOString() });
  checklist.processing(['tools']);

  try {
    // 2. Source → endpoints → tools.
    const allowExternalRefs =
      opts.allowExternalRefs ?? (source.kind === 'openapi' ? source.allowExternalRefs === true : false);
    let text: string;
    let endpoints: Endpoint[];
    let webhooks: Endpoint[];
    let markdown: Awaited<ReturnType<typeof loadHtmlToMarkdown>> | undefined;
    let baseUrl: string | undefined;
    let generated: ReturnType<typeof buildTools>;
    let sourceRead: SourceRead | undefined;
    let authNotice: string | undefined;
    const warnings: string[] = [];
    // Descriptions kept as plain text because their HTML could not be converted, by text.
    const asText = new Map<string, unknown>();
    try {
      sourceRead = await plan.read();
      const read = sourceRead.document;
      if (sourceRead.commit && source.kind === 'git' && source.commit !== sourceRead.commit)
        config = { ...config, source: { ...source, commit: sourceRead.commit } };
      text = read.text;
      const parsed = await parseDocument(read, { allowExternalRefs });
      endpoints = toEndpoints(parsed);
      webhooks = toWebhooks(parsed);
      if (config.auth.mode === 'none')
        authNotice = authWarning(declaredSchemes(parsed.document, parsed.version));
      baseUrl = defaultBaseUrl(parsed, read.origin);
      // The converter's libraries load only when the document may hold HTML descriptions.
      markdown = mayContainHtml(text)
        ? await loadHtmlToMarkdown((html, error) => asText.set(html, error))
        : undefined;
      generated = buildTools(endpoints, {
        ...compactOptions(config, previous),
        ...(markdown ? { markdown } : {}),
        onWarning: (text) => warnings.push(text),
      });
      warnings.push(...textFallbackWarnings(asText));
    } catch (error) {
      throw new StepFailure('tools', asSvcError(error));
    }
    if (!config.apiBaseUrl) {
      if (!baseUrl) {
        throw new StepFailure(
          'tools',
          new SvcError(
            'SPEC_INVALID',
            'the document names no server URL, so the API base URL is unknown; give --base-url',
            {
              place: { field: 'servers' },
            },
          ),
        );
      }
      config = { ...config, apiBaseUrl: baseUrl };
    }

    // 3. Content (when a content directory is configured or given).
    let content: ContentItems | undefined;
    if (contentDir !== undefined) {
      checklist.processing(CONTENT_ROWS);
      const dir = isAbsolute(contentDir) ? contentDir : resolve(opts.dir, contentDir);
      let parsed: ReturnType<typeof parseContent>;
      try {
        parsed = parseContent(
          sourceRead?.readContent ? await sourceRead.readContent() : await readContentDir(dir),
        );
      } catch (error) {
        throw new StepFailure('resources', asSvcError(error));
      }
      if (!parsed.ok) {
        const first = parsed.errors[0]!;
        const error = new SvcError(first.code, first.message, {
          place: first.place,
          details: parsed.errors.slice(1).map((e) => e.describe()),
        });
        throw new StepFailure(checklistKindOfPath(first.place.file) ?? 'resources', error);
      }
      content = parsed.items;
    }

    // 4. Merge with what is in the folder.
    const records = previousFiles ? readHistory(previousFiles) : [];
    const lastWritten = previousFiles ? readWritten(previousFiles, WRITTEN_FILE) : {};
    // Only content items are told apart by hash (tools by a three-way merge with what the
    // previous import generated: stored, or for older folders made again from its endpoints).
    const currentHashes = previous ? contentHashes(previous) : {};
    const last = lastComplete(records);
    const bases = previousFiles && previous ? readGenerated(previousFiles) : undefined;
    // No stored bases (a folder from an older svc): candidates for reconstructing them, from
    // the previous import's endpoints, or today's for files whose endpoint did not change.
    const earlier =
      previous && !bases
        ? derivedBases(
            previous.tools,
            earlierGenerations(
              last?.endpoints && previousFiles ? loadEndpoints(previousFiles, last.endpoints) : endpoints,
              { ...compactOptions(config, previous), ...(markdown ? { markdown } : {}) },
            ),
            !last?.endpoints,
          )
        : undefined;
    const merged = mergeImport({
      ...(previous ? { previous } : {}),
      ...(bases ? { bases } : {}),
      ...(earlier ? { earlier } : {}),
      lastWritten,
      currentHashes,
      tools: generated,
      ...(content ? { content } : {}),
    });

    // 5. Render (validated), keeping the bytes of what did not change or must not change.
    const model: FolderModel = { config, tools: merged.tools, ...merged.content };
    // What is written is validated by loading it back; a dry run writes nothing and skips that.
    const rendered = opts.dryRun
      ? renderUnchecked(model, text)
      : renderFolderChecked(model, { openapi: text });
    if (!rendered.ok) {
      const first = rendered.errors[0]!;
      throw new StepFailure(
        checklistKindOfPath(first.place.file) ?? 'tools',
        new SvcError('FOLDER_INVALID', `the imported folder would not be valid: ${first.message}`, {
          place: first.place,
          details: rendered.errors.slice(1).map((e) => e.describe()),
        }),
      );
    }
    const files: FolderFiles = { ...rendered.files };
    const kept = new Set(merged.keptFiles);
    if (previousFiles && previous) {
      for (const path of kept) if (previousFiles[path] !== undefined) files[path] = previousFiles[path]!;
      // A file whose meaning did not change keeps its bytes (and any comment a reviewer added).
      if (previousFiles['config.yaml'] !== undefined && sameJson(previous.config, config)) {
        files['config.yaml'] = previousFiles['config.yaml'];
      }
      const before = new Map(previous.tools.map((t) => [t.file, t.tool]));
      for (const item of merged.tools) {
        const old = before.get(item.file);
        const was = previousFiles[item.file];
        if (!old || was === undefined || was === files[item.file]) continue;
        if (sameJson(old, item.tool)) {
          files[item.file] = was;
        } else if (was !== renderTool(old)) {
          // Laid out or commented by hand: the changes go into the file's own YAML document.
          const patched = patchYaml(was, item.tool as unknown as Record<string, unknown>);
          if (patched !== undefined) files[item.file] = patched;
        }
      }
      // A README.md svc did not write (kept by `svc init --force`) stays the user's.
      const readme = previousFiles['README.md'];
      if (readme !== undefined && !readme.includes(README_SIGNATURE)) files['README.md'] = readme;
      // Files in managed directories that svc does not model (an image beside a doc) stay.
      for (const [path, text] of Object.entries(previousFiles)) {
        if (isBookkeeping(path) || path in files || !isManagedPath(path)) continue;
        if (loadFolderKnows(path)) continue;
        files[path] = text;
      }
    }

    // 6. Diff against the previous import, report.
    const before = last?.endpoints && previousFiles ? loadEndpoints(previousFiles, last.endpoints) : [];
    const diffOptions = diffOptionsOf(config.diff, now());
    const changes = diffEndpoints(before, endpoints, diffOptions);
    // Webhooks (OpenAPI 3.1) against the document the folder holds; none stored with the endpoints.
    if (last?.endpoints && previousFiles)
      changes.push(...(await webhookChanges(previousFiles[FOLDER_DOCUMENT], webhooks, diffOptions)));
    const changed = !previousFiles || !sameFiles(previousFiles, files);
    const documentSha256 = sha256Hex(text);
    const report = buildReport({
      source: { location: recordableLocation(location), documentSha256 },
      ...(last
        ? {
            previous: {
              seq: last.seq,
              ...(last.revision?.documentSha256 ? { documentSha256: last.revision.documentSha256 } : {}),
            },
          }
        : {}),
      endpointsBefore: before.length,
      endpointsAfter: endpoints.length,
      endpoints: changes,
      notes: merged.notes,
      tools: merged.tools,
      changed,
      toolsList: { ...(previous ? { before: toolsListCost(previous) } : {}), after: toolsListCost(model) },
    });

    // 7. History and bookkeeping.
    const written: Record<string, string> = {};
    for (const [path, hash] of Object.entries(contentHashes(merged.content))) {
      if (!kept.has(path)) written[path] = hash;
      else if (lastWritten[path] !== undefined) written[path] = lastWritten[path]!;
    }
    statusLog.push({ status: 'complete', at: now().toISOString() });
    const book = nextBookkeeping({
      previous: previousFiles ?? {},
      record: {
        schemaVersion: 1,
        seq: nextSeq(records),
        status: 'complete',
        statusLog,
        source: { location: recordableLocation(location), ...(contentDir ? { contentDir } : {}) },
        revision: { documentSha256, ...(sourceRead?.commit ? { gitCommit: sourceRead.commit } : {}) },
        changed,
        summary: report.summary,
        report: last ? report : firstImportRecordReport(report),
      },
      // A dry run shows the record it would append but spends no time storing endpoints.
      ...(opts.dryRun ? {} : { endpoints }),
      // Kept as the same bytes as Tools/openapi.json, so git stores the document once for both.
      document: { text: files[OPENAPI_FILE] ?? text, sha256: documentSha256 },
      written,
      generated: renderGenerated(merged.generatedByKey),
    });
    Object.assign(files, book.files);
    // A first import makes the folder: it gets the `.gitignore` that keeps `.env` out of git.
    if (opts.config && !(GITIGNORE_FILE in files)) files[GITIGNORE_FILE] = renderGitignore();
    const userKept = opts.userFiles ? keepUserFiles(files, opts.userFiles) : undefined;
    if (userKept) Object.assign(files, userKept.files);

    // 8. Write, atomically.
    if (!opts.dryRun) {
      try {
        await writeFolder(opts.dir, files);
      } catch (error) {
        throw new StepFailure('tools', asSvcError(error));
      }
    }
    checklist.complete('tools', generated.length);
    if (warnings.length > 0) checklist.note('tools', plural(warnings.length, 'warning'));
    const counts = contentRowsOf(
      content ?? { skills: [], prompts: [], resources: [], docs: [], widgets: [] },
    );
    for (const row of checklist.rows)
      if (row.kind !== 'tools') checklist.complete(row.kind, counts[row.kind]);
    return {
      status: 'complete',
      changed,
      report,
      checklist: checklist.snapshot(),
      files,
      record: book.record,
      ...(userKept ? { keptUserFiles: userKept.kept } : {}),
      ...(authNotice ? { authWarning: authNotice } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  } catch (error) {
    const step = error instanceof StepFailure ? error.step : 'tools';
    return failed(asSvcError(error), step);
  }
}

/**
 * Short descriptions when config.yaml asks for them for every tool, or a tool's file for itself
 * (matched by endpoint, as the merge matches tools).
 */
/** The tools known generators make of these endpoints: today's rules, then the first release's. */
function earlierGenerations(endpoints: Endpoint[], options: BuildToolsOptions) {
  return [buildTools(endpoints, options), firstReleaseTools(endpoints)];
}

function compactOptions(config: SvcConfig, previous: FolderModel | undefined): BuildToolsOptions {
  const own = new Set(
    (previous?.tools ?? [])
      .filter((t) => t.tool.origin === 'imported' && t.tool.compact === true)
      .map((t) => endpointMatchKey(t.tool.endpoint.method, t.tool.endpoint.path)),
  );
  return {
    ...(config.compact ? { compact: true } : {}),
    ...(own.size > 0 ? { compactFor: (e: Endpoint) => own.has(endpointMatchKey(e.method, e.path)) } : {}),
  };
}

/**
 * A first import's diff says "everything was added": its record keeps the counts and leaves
 * the lists out (the endpoints themselves are in .svc/endpoints/), so that importing a
 * 1,000-endpoint API does not put a 500 KB record in the pull request.
 */
function firstImportRecordReport(report: ImportReport): ImportReport {
  return {
    ...report,
    endpoints: report.endpoints.filter((e) => e.kind !== 'added'),
    tools: { ...report.tools, added: [] },
  };
}

function renderUnchecked(
  model: FolderModel,
  text: string,
): { ok: true; files: FolderFiles } | { ok: false; errors: SvcError[] } {
  try {
    return { ok: true, files: renderFolder(model, { openapi: text }) };
  } catch (error) {
    if (error instanceof SvcError) return { ok: false, errors: [error] };
    throw error;
  }
}

/** Paths the folder loader reads as tools, the document or content (svc re-renders those). */
function loadFolderKnows(path: string): boolean {
  if (/^Tools\/[^/]+\.(yaml|json)$/.test(path)) return true;
  return checklistKindOfPath(path) !== undefined && /\.(md|mdx|html|json)$/i.test(path);
}

const MAX_TEXT_FALLBACKS_NAMED = 5;

/** One warning per description kept as text (the first few named by their opening words). */
function textFallbackWarnings(asText: ReadonlyMap<string, unknown>): string[] {
  const out: string[] = [];
  for (const [html, error] of [...asText].slice(0, MAX_TEXT_FALLBACKS_NAMED)) {
    const opening = html.replace(/\s+/g, ' ').slice(0, 60);
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    out.push(
      `a description could not be converted from HTML to Markdown (${why}); it is kept as plain text: "${opening}${html.length > 60 ? '…' : ''}"`,
    );
  }
  if (asText.size > MAX_TEXT_FALLBACKS_NAMED)
    out.push(
      `${asText.size - MAX_TEXT_FALLBACKS_NAMED} more descriptions were kept as plain text for the same reason`,
    );
  return out;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'} (below)`;
}

function sameFiles(a: FolderFiles, b: FolderFiles): boolean {
  const counted = (p: string) => isManagedPath(p) && !isBookkeeping(p);
  const ka = Object.keys(a).filter(counted);
  const kb = Object.keys(b).filter(counted);
  if (ka.length !== kb.length) return false;
  return ka.every((p) => a[p] === b[p]);
}
