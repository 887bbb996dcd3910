/**
 * `svc init <dir> --app-builder <app-id>`: one server folder per reachable branch
 * (`<dir>/live/`, `<dir>/main/`, `<dir>/version-<id>/`), each unverified and without tools until
 * `svc verify` finds the token page and `svc import` reads its Swagger document (spec 4.5.4).
 * The verification token is the one random input (verification-token.ts): given, the folders
 * are byte-for-byte the same at every run.
 * Neither branch reachable: the setup instructions, and nothing is written.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { SvcError } from '../core/svc-error.js';
import { writeFolder } from '../folder/index.js';
import { appBuilderConfig } from '../generator/init/index.js';
import { renderEmptyFolder } from '../generator/render/index.js';
import { APP_BUILDER_SETUP_STEPS, detectCustomDomain } from '../generator/sources/app-builder-source.js';
import {
  APP_BUILDER_ORIGIN_ENV,
  checkAppId,
  checkBranchId,
  DEFAULT_APP_BUILDER_ORIGIN,
  LIVE_BRANCH,
  MAIN_BRANCH,
  platformOriginOf,
} from '../generator/sources/app-builder-urls.js';
import type { Auth } from '../schemas/types.js';
import { checkBranchDocument } from '../generator/import/check-branch-document.js';
import type { CliIo } from '../core/command.js';
import { EXIT } from '../core/exit-codes.js';
import { verificationSteps } from './verification-steps.js';
import { verificationTokenOf } from './verification-token.js';

export interface AppBuilderInitInput {
  dir: string;
  dirArg: string;
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
  /** --verification-token, else SVC_VERIFICATION_TOKEN; else a random one is issued. */
  verificationToken?: string | undefined;
  json: boolean;
}

/** The origin template from the flag or the environment; undefined for the platform's own. */
export function appBuilderOrigin(flag: string | undefined, io: CliIo): string | undefined {
  const template = flag ?? io.env[APP_BUILDER_ORIGIN_ENV];
  if (!template || template === DEFAULT_APP_BUILDER_ORIGIN) return undefined;
  platformOriginOf('app', template);
  return template;
}

export async function initAppBuilder(input: AppBuilderInitInput, io: CliIo): Promise<number> {
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
    if (existsSync(existing)) {
      throw new SvcError(
        'FOLDER_EXISTS',
        'a server folder already exists here; re-import it with `svc import`',
        {
          place: { file: existing },
        },
      );
    }
  }
  const token = verificationTokenOf(input.verificationToken, io.env);
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
  for (const { check, config } of configs) {
    const files = renderEmptyFolder(config);
    await writeFolder(path.join(input.dir, check.folder), files);
    written.push({ branch: check.branch, folder: check.folder, serverId: config.server.id, url: check.url });
  }

  if (input.json) {
    io.stdout(
      `${JSON.stringify(
        {
          ok: true,
          dir: input.dir,
          appId,
          ...(customDomain ? { customDomain } : {}),
          verificationToken: token,
          verified: false,
          branches: checks.map((c) => ({
            branch: c.branch,
            folder: c.folder,
            url: c.url,
            reachable: c.ok,
            ...(c.ok ? {} : { error: c.error.toJSON() }),
          })),
        },
        null,
        2,
      )}\n`,
    );
    return EXIT.ok;
  }
  const lines = [
    `App-builder app "${appId}"${customDomain ? ` (custom Live domain ${customDomain})` : ''}${detected.note ? ` (${detected.note})` : ''}`,
    ...checks.map((c) =>
      c.ok
        ? `  ${c.folder}: ${c.url} → ${input.dirArg}/${c.folder}/`
        : `  ${c.folder}: not reachable (${c.error.message}); not created`,
    ),
    '',
    ...verificationSteps(token, input.dirArg),
    `Then import each branch: ${written.map((w) => `svc import ${input.dirArg}/${w.folder}`).join(', ')}.`,
  ];
  io.stdout(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
