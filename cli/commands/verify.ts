import path from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import {
  newVerificationToken,
  type PageProbe,
  probeVerificationPage,
  RUN_MODE_PASSWORD_ENV,
  RUN_MODE_USER_ENV,
  type RunModeCredentials,
} from '../../generator/sources/app-builder-source.js';
import { LIVE_BRANCH, MAIN_BRANCH } from '../../generator/sources/app-builder-urls.js';
import { openAppBuilderFolders, updateSources } from '../../generator/import/app-builder-folders.js';
import type { CliIo, Command } from '../../core/command.js';
import { EXIT } from '../../core/exit-codes.js';
import { fail } from '../../core/fail.js';
import { appBuilderOrigin } from '../init-app-builder.js';
import { parseCommandArgs, requirePositional } from '../../core/parse-args.js';
import { verificationSteps } from '../verification-steps.js';

const usage = `Usage: svc verify <dir> [--reset] [--json]

Checks that you own an app-builder app: prints the verification token, then looks for
a page whose slug is the token on the live version and on version-test. Found on either: every
branch folder of the app (<dir>/live, <dir>/main, … or <dir> itself) is marked verified in its
config.yaml, and \`svc import\` can import it. The token is not a secret: it is a page name.

Options:
  --reset   issue a new token and mark the app unverified (after an account transfer or a
            change of domain); create the page for the new token, then run svc verify again
  --json    print the result as JSON

Run-mode protection (the app asks for a username and password): set ${RUN_MODE_USER_ENV} and
${RUN_MODE_PASSWORD_ENV}. They are sent as basic auth to the verification pages only and never
written anywhere.`;

function runModeCredentials(io: CliIo): RunModeCredentials | undefined {
  const user = io.env[RUN_MODE_USER_ENV];
  const password = io.env[RUN_MODE_PASSWORD_ENV];
  if (!user && !password) return undefined;
  if (!user || !password) {
    throw new SvcError('USAGE', `set both ${RUN_MODE_USER_ENV} and ${RUN_MODE_PASSWORD_ENV}, or neither`);
  }
  return { user, password };
}

export const verifyCommand: Command = {
  name: 'verify',
  summary: 'verify ownership of an app-builder app (prints the token; --reset issues a new one)',
  usage,
  async run(argv, io) {
    let json = false;
    try {
      const { values, positionals } = parseCommandArgs('verify', argv, {
        reset: { type: 'boolean' },
        json: { type: 'boolean' },
      });
      json = values.json === true;
      const dirArg = requirePositional('verify', positionals, 0, 'the app folder (svc verify <dir>)');
      const folders = await openAppBuilderFolders(io.cwd, dirArg);
      const first = folders[0]!.source;
      const existing = first.verificationToken;

      if (values.reset || !existing) {
        const token = newVerificationToken();
        await updateSources(folders, (s) => ({ ...s, verificationToken: token, verified: false }));
        if (json) {
          io.stdout(`${JSON.stringify({ ok: true, verified: false, verificationToken: token }, null, 2)}\n`);
        } else {
          io.stdout(
            `${values.reset ? 'Issued a new verification token; the app is unverified until the page is found.\n' : ''}${verificationSteps(token, dirArg).join('\n')}\n`,
          );
        }
        return values.reset ? EXIT.ok : EXIT.checkFailed;
      }

      const credentials = runModeCredentials(io);
      const platformOrigin = first.platformOrigin ?? appBuilderOrigin(undefined, io);
      const probes: PageProbe[] = await Promise.all(
        [LIVE_BRANCH, MAIN_BRANCH].map((branch) =>
          probeVerificationPage(
            { appId: first.appId, branch, customDomain: first.customDomain, platformOrigin },
            existing,
            credentials,
          ),
        ),
      );
      const found = probes.some((p) => p.found);
      if (found) {
        await updateSources(folders, (s) => ({ ...s, verificationToken: existing, verified: true }));
      }
      if (json) {
        io.stdout(
          `${JSON.stringify({ ok: found, verified: found, verificationToken: existing, probes }, null, 2)}\n`,
        );
      } else {
        const lines = [
          `Verification token: ${existing}`,
          ...probes.map((p) => `  ${p.url}: ${p.found ? 'found' : `not found (${p.reason})`}`),
        ];
        if (found) {
          lines.push(
            `App verified. Import each branch: ${folders.map((f) => `svc import ${path.relative(io.cwd, f.dir) || '.'}`).join(', ')}.`,
          );
        } else {
          lines.push('', ...verificationSteps(existing, dirArg));
        }
        io.stdout(`${lines.join('\n')}\n`);
      }
      if (!found) io.stderr('error: NOT_VERIFIED: the verification page was found on neither version\n');
      return found ? EXIT.ok : EXIT.checkFailed;
    } catch (error) {
      return fail(io, error, { json });
    }
  },
};
