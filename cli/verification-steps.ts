import { RUN_MODE_PASSWORD_ENV, RUN_MODE_USER_ENV } from '../generator/sources/app-builder-source.js';

/** How to prove ownership of an app-builder app (spec 4.5.4), as lines for a terminal. */
export function verificationSteps(token: string, dirArg: string): string[] {
  return [
    `Verify that you own the app (token: ${token}):`,
    `  1. In the app editor, add a page named exactly ${token} and put the text ${token} on it.`,
    '  2. Deploy it to Live (or keep it on version-test): either version is enough.',
    `  3. If the app asks for a username and password (run-mode protection), set ${RUN_MODE_USER_ENV} and ${RUN_MODE_PASSWORD_ENV}.`,
    `  4. Run \`svc verify ${dirArg}\`.`,
  ];
}
