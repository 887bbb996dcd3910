/**
 * `svc init <dir> --app-builder <app-id>`: one server folder per reachable branch
 * (`<dir>/live/`, `<dir>/main/`, `<dir>/version-<id>/`), each unverified and without tools until
 * `svc verify` finds the token page and `svc import` reads its Swagger document (spec 4.5.4).
 * The verification token is the one random input (the caller issues it: cli/verification-token.ts):
 * given, the folders are byte-for-byte the same at every run. Printing stays with the caller.
 * Neither branch reachable: the setup instructions, and nothing is written.
 */
import path from 'node:path';
import { isSvcError, SvcError } from '../../core/svc-error.js';
import { isServerFolder } from '../../folder/branch-folders.js';
import type { FolderFiles } from '../../folder/model.js';
import { writeFolder } from '../../folder/write-folder.js';
import { readUserFiles } from '../../folder/user-files.js';
import type { Auth } from '../../schemas/types.js';
import { appBuilderConfig } from '../init/index.js';
import { renderEmptyFolder } from '../render/index.js';
import { APP_BUILDER_SETUP_STEPS, detectCustomDomain } from '../sources/app-builder-source.js';
import { checkAppId, checkBranchId, LIVE_BRANCH, MAIN_BRANCH } from '../sources/app-builder-urls.js';
import { type BranchCheck, checkBranchDocument } from './check-branch-document.js';

export interface AppBuilderFoldersInput {
  dir: string;
  name: string;
  serverId: string;
  appId: string;
  extraBranches: readonly string[];
  customDomain?: string | undefined;
  /** --app-builder-origin, else SVC_APP_BUILDER_ORIGIN. */
  origin?: string | undefined;
  auth: { mode: Auth['mode']; apiKeyIn?: 'header' | 'query'; apiKeyName?: string };
  description?: string | undefined;
  logoUrl?: string | undefined;
  website?: string | undefined;
  compact?: boolean;
}

/** What `createAppBuilderFolders` found and wrote. */
export interface AppBuilderFolders {
  appId: string;
  customDomain: string | undefined;
  /** How the custom domain was (not) detected, when there is something to say. */
  note: string | undefined;
  /** Every branch's document check, reachable or not. */
  checks: BranchCheck[];
  verificationToken: string;
  /** The branch folders written, one per reachable branch. */
  written: { branch: string; folder: string; serverId: string; url: string }[];
}

/**
 * Checks every branch's Swagger document and writes one empty server folder per reachable branch;
 * `verificationToken` issues the token (asked for once the checks passed). Nothing is written
 * when no branch is reachable or a branch folder exists already.
 */
export async function createAppBuilderFolders(
  input: AppBuilderFoldersInput,
  verificationToken: () => string,
): Promise<AppBuilderFolders> {
  const appId = checkAppId(input.appId);
  const branches = [LIVE_BRANCH, MAIN_BRANCH, ...input.extraBranches.map(checkBranchId)];
  const detected = input.customDomain
    ? { domain: input.customDomain }
    : await detectCustomDomain(appId, input.origin);
  const customDomain = detected.domain;
  const checks = await Promise.all(
    branches.map((branch) =>
      checkBranchDocument({ appId, branch, customDomain, platformOrigin: input.origin }),
    ),
  );
  const reachable = checks.filter((c) => c.ok);
  if (reachable.length === 0) {
    throw new SvcError(
      'SOURCE_UNREACHABLE',
      `no Swagger document of app "${appId}" is reachable, so there is nothing to import; set the app up on the platform, then run svc init again (nothing was written)`,
      {
        details: [
          ...checks.map((c) => `${c.folder}: ${c.url}: ${c.ok ? 'reachable' : c.error.message}`),
          'Setup on the platform:',
          ...APP_BUILDER_SETUP_STEPS.map((step, i) => `${i + 1}. ${step}`),
        ],
      },
    );
  }

  for (const check of reachable) {
    const existing = path.join(input.dir, check.folder, 'config.yaml');
    if (await isServerFolder(path.join(input.dir, check.folder))) {
      throw new SvcError(
        'FOLDER_EXISTS',
        'a server folder already exists here; re-import it with `svc import`',
        {
          place: { file: existing },
        },
      );
    }
  }
  const token = verificationToken();
  const written: { branch: string; folder: string; serverId: string; url: string }[] = [];
  // Every config is built (and so checked) before the first folder is written.
  const configs = reachable.map((check) => ({
    check,
    config: appBuilderConfig({
      name: input.name,
      serverId: input.serverId,
      place: { appId, branch: check.branch, customDomain, platformOrigin: input.origin },
      verificationToken: token,
      auth: input.auth,
      ...(input.description ? { description: input.description } : {}),
      ...(input.logoUrl ? { logoUrl: input.logoUrl } : {}),
      ...(input.website ? { website: input.website } : {}),
      ...(input.compact ? { compact: true } : {}),
    }),
  }));
  // One write of the app folder, so one transaction of the crash journal: the branch folders appear
  // together or not at all. What the app folder already holds under the paths svc manages is
  // written back as it is (the writer would replace those entries as a whole).
  const files: FolderFiles = { ...(await readUserFiles(input.dir).catch(notFound))?.files };
  for (const { check, config } of configs) {
    for (const [p, text] of Object.entries(renderEmptyFolder(config))) files[`${check.folder}/${p}`] = text;
    written.push({ branch: check.branch, folder: check.folder, serverId: config.server.id, url: check.url });
  }
  await writeFolder(input.dir, files);

  return { appId, customDomain, note: detected.note, checks, verificationToken: token, written };
}

/** Undefined for a directory that is not there yet; any other error is thrown. */
function notFound(error: unknown): undefined {
  if (isSvcError(error) && error.code === 'FOLDER_NOT_FOUND') return undefined;
  throw error;
}
