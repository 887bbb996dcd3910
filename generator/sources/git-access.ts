/**
 * How an import may reach a git or raw-URL source: the token (never written anywhere), where
 * fetched repositories are cached, the address policy, and a stored connection's credentials.
 * Passed down by the CLI, the Action and the control service; read by the source readers.
 */
import type { Source } from '../../schemas/types.js';
import type { AddressPolicy } from './address-policy.js';

export type GitSource = Extract<Source, { kind: 'git' }>;

export interface GitAccess {
  token?: string;
  /** Basic user name sent with `token` to a git host (default x-access-token); raw URLs get Bearer. */
  username?: string;
  /** What to set when the source needs a credential, as errors name it (default SVC_GIT_TOKEN). */
  credentialHint?: string;
  cacheDir?: string;
  /** Checks every address a source URL leads to (the control service: no private addresses). */
  policy?: AddressPolicy;
  /** Throws when the token may not be sent to `url` (the control service's source credential scope). */
  allowToken?: (url: string) => void;
  /** A source naming a connection: its repository URL and credentials (the CLI opens the store). */
  credentials?: (source: GitSource) => Promise<{ url: string; username: string; token: string }>;
}
