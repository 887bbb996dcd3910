/**
 * The token of an app-builder ownership check (spec 3.2), for `svc init --app-builder` and
 * `svc source set --app-builder`. It is the slug of a page the owner creates on the app, so it is
 * public once that page exists, and it is kept in config.yaml where every teammate (and CI) can
 * run `svc verify`. What it must be is *this claimant's own*: unguessable before it is issued,
 * so that a page someone else made for their token cannot verify this folder by accident.
 *
 * Random by default. Given with --verification-token or SVC_VERIFICATION_TOKEN (a token issued
 * earlier, or one made with `openssl rand -hex 16`), the command's output is a pure function of
 * its inputs: two runs write byte-identical folders.
 */
import { SvcError } from '../core/svc-error.js';
import { newVerificationToken } from '../generator/sources/app-builder-source.js';

export const VERIFICATION_TOKEN_ENV = 'SVC_VERIFICATION_TOKEN';

/** Lower-case letters and digits (a page slug), long enough that nobody guesses it: 16 hex digits are 64 bits. */
const TOKEN = /^[a-z0-9]{16,64}$/;

export function verificationTokenOf(
  flag: string | undefined,
  env: Record<string, string | undefined>,
): string {
  const fromEnv = env[VERIFICATION_TOKEN_ENV]?.trim();
  const given = flag ?? (fromEnv || undefined);
  if (given === undefined) return newVerificationToken();
  if (!TOKEN.test(given)) {
    throw new SvcError(
      'USAGE',
      `the verification token must be 16 to 64 lower-case letters and digits (it is a page name), e.g. from \`openssl rand -hex 16\``,
      { place: { field: flag !== undefined ? '--verification-token' : VERIFICATION_TOKEN_ENV } },
    );
  }
  return given;
}
