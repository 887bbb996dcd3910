/**
 * `svc init <dir> --app-builder <app-id>`: the flags and what is printed. The folders are
 * checked and written by generator/import/app-builder-init.ts.
 */
import type { CliIo } from '../core/command.js';
import { EXIT } from '../core/exit-codes.js';
import {
  type AppBuilderFoldersInput,
  createAppBuilderFolders,
} from '../generator/import/app-builder-init.js';
import {
  APP_BUILDER_ORIGIN_ENV,
  DEFAULT_APP_BUILDER_ORIGIN,
  platformOriginOf,
} from '../generator/sources/app-builder-urls.js';
import { verificationSteps } from './verification-steps.js';
import { verificationTokenOf } from './verification-token.js';

export interface AppBuilderInitInput extends AppBuilderFoldersInput {
  dirArg: string;
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
  const made = await createAppBuilderFolders(input, () =>
    verificationTokenOf(input.verificationToken, io.env),
  );
  const { appId, customDomain, checks, written, verificationToken: token } = made;
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
    `App-builder app "${appId}"${customDomain ? ` (custom Live domain ${customDomain})` : ''}${made.note ? ` (${made.note})` : ''}`,
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
