import { BOOKKEEPING_DIR } from '../../folder/model.js';

/**
 * The bookkeeping directory (.svc/), one file per concern so that git diffs stay small:
 *   history/<seq>.json     one HistoryRecord per import, written once
 *   endpoints/<seq>.json   the normalized endpoints first seen in that import, by content hash
 *   specs/<sha>.json       the documents of the two valid imports before the current one, byte for
 *                          byte their Tools/openapi.json (the current document is Tools/openapi.json
 *                          itself, stored once); <sha> is of the text as read
 *   generated.json         the tool the last import generated for each tool file: the merge base
 *   written.json           a hash of what each content file said when the last import wrote it
 *                          (enabled and sortOrder left out): hand-edit detection
 *   unchanged.json         after a no-op import: the fingerprint of its inputs, so the same
 *                          import again is replayed without planning (plan-unchanged.ts)
 */
export const HISTORY_DIR = `${BOOKKEEPING_DIR}/history`;
export const ENDPOINTS_DIR = `${BOOKKEEPING_DIR}/endpoints`;
export const SPECS_DIR = `${BOOKKEEPING_DIR}/specs`;
export const WRITTEN_FILE = `${BOOKKEEPING_DIR}/written.json`;
export const UNCHANGED_FILE = `${BOOKKEEPING_DIR}/unchanged.json`;
/** The current document, outside .svc/: the raw documents of earlier imports join it in specs/. */
export const FOLDER_DOCUMENT = 'Tools/openapi.json';
/** Raw documents kept (spec 8). */
export const RETAINED_SPECS = 3;

export function seqName(seq: number): string {
  return String(seq).padStart(6, '0');
}

export function historyPath(seq: number): string {
  return `${HISTORY_DIR}/${seqName(seq)}.json`;
}

export function endpointsPath(seq: number): string {
  return `${ENDPOINTS_DIR}/${seqName(seq)}.json`;
}

export function specPath(documentSha256: string, text: string): string {
  const ext = /^\s*[[{]/.test(text) ? 'json' : 'yaml';
  return `${SPECS_DIR}/${documentSha256.slice(0, 16)}.${ext}`;
}

export function isBookkeeping(path: string): boolean {
  return path === BOOKKEEPING_DIR || path.startsWith(`${BOOKKEEPING_DIR}/`);
}
