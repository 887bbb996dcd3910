/**
 * `svc init --app-builder` and `svc source set --app-builder`: whether a branch's Swagger document
 * is reachable and parses, read through the source readers and checked by the parser (which is
 * why it sits here, above both, and not among the readers).
 */
import { SvcError } from '../../core/svc-error.js';
import { parseDocument } from '../parse/index.js';
import type { AppBuilderPlace } from '../sources/app-builder-urls.js';
import { branchFolder, swaggerUrlOf } from '../sources/app-builder-urls.js';
import { readOpenApiSource } from '../sources/index.js';

export type BranchCheck =
  | { branch: string; folder: string; url: string; ok: true }
  | { branch: string; folder: string; url: string; ok: false; error: SvcError };

/** Whether a branch's Swagger document is reachable and a valid Swagger/OpenAPI document. */
export async function checkBranchDocument(place: AppBuilderPlace): Promise<BranchCheck> {
  const url = swaggerUrlOf(place);
  const folder = branchFolder(place.branch);
  try {
    await parseDocument(await readOpenApiSource(url, { cwd: '.' }));
    return { branch: place.branch, folder, url, ok: true };
  } catch (error) {
    const svcError =
      error instanceof SvcError
        ? error
        : new SvcError('SOURCE_UNREACHABLE', String(error), { place: { url } });
    return { branch: place.branch, folder, url, ok: false, error: svcError };
  }
}
