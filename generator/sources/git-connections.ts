/**
 * The git connections of this user (spec 2.2, 2.6): GitHub App installations, GitLab OAuth
 * grants and access tokens for other hosts, kept in the user's svc config directory ($SVC_CONFIG_DIR, else ~/.config/svc), never in
 * a server folder. Secrets (a private key, a refresh token, a client secret) are sealed with
 * AES-256-GCM under a key file of mode 0600 beside the store; the rest is plain JSON so that
 * `svc git connections` can list them without opening anything.
 *
 * Every change rewrites the store atomically (temporary file, then rename): a refresh token that
 * was rotated is never lost half-written.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { loadControlKey, type SecretBox, secretBox } from '../../control/secret-box.js';
import { SvcError } from '../../core/svc-error.js';

export interface GithubAppConnection {
  id: string;
  provider: 'github';
  appId: string;
  installationId: string;
  /** REST API base URL (https://api.github.com, or GitHub Enterprise's /api/v3). */
  apiUrl: string;
  /** Where repositories are cloned from: `${gitUrl}/<owner>/<name>.git`. */
  gitUrl: string;
  /** The app's private key, sealed. */
  privateKey: string;
}

export interface GitlabConnection {
  id: string;
  provider: 'gitlab';
  /** https://gitlab.com or a self-managed instance. */
  instance: string;
  /** Where repositories are cloned from, when not the instance itself. */
  gitUrl?: string;
  clientId: string;
  /** Sealed; absent for a public (PKCE) client. */
  clientSecret?: string;
  /** The only token kept: sealed, replaced by the new one at every refresh. */
  refreshToken: string;
}

/** A personal or project access token for any smart-HTTP host or raw URL (spec 2.2 "other git"). */
export interface TokenConnection {
  id: string;
  provider: 'token';
  /** Basic user name sent with the token over git (default x-access-token); raw URLs get Bearer. */
  username?: string;
  /**
   * The URL prefix the token may be sent to (credential-scope.ts). Absent only in a connection made
   * by an older svc: such a connection is refused until it is made again with --url.
   */
  urlPrefix?: string;
  /** Sealed. */
  token: string;
}

export type GitConnection = GithubAppConnection | GitlabConnection | TokenConnection;

interface StoreFile {
  schemaVersion: 1;
  connections: GitConnection[];
}

const STORE = 'git-connections.json';

/** $SVC_CONFIG_DIR, else ~/.config/svc. */
export function svcConfigDir(env: Record<string, string | undefined>): string {
  return env.SVC_CONFIG_DIR || join(env.HOME || homedir(), '.config', 'svc');
}

export class ConnectionStore {
  private constructor(
    readonly dir: string,
    private readonly box: SecretBox,
  ) {}

  static async open(dir: string): Promise<ConnectionStore> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return new ConnectionStore(dir, secretBox(await loadControlKey(dir, undefined)));
  }

  seal(plain: string): string {
    return this.box.seal(plain);
  }

  open(sealed: string): string {
    return this.box.open(sealed);
  }

  async list(): Promise<GitConnection[]> {
    let text: string;
    try {
      text = await readFile(join(this.dir, STORE), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const parsed = JSON.parse(text) as StoreFile;
    return parsed.connections ?? [];
  }

  async get(id: string): Promise<GitConnection> {
    const found = (await this.list()).find((c) => c.id === id);
    if (!found) {
      throw new SvcError(
        'SOURCE_NOT_FOUND',
        `the git connection "${id}" is gone (disconnected?); connect it again with \`svc git connect\` or change the source`,
        { place: { field: 'source.connection' } },
      );
    }
    return found;
  }

  /** Adds or replaces (by id) a connection. */
  async put(connection: GitConnection): Promise<void> {
    const rest = (await this.list()).filter((c) => c.id !== connection.id);
    await this.write([...rest, connection].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
  }

  /** Removes a connection; false when there was none of that id. */
  async remove(id: string): Promise<boolean> {
    const all = await this.list();
    const rest = all.filter((c) => c.id !== id);
    if (rest.length === all.length) return false;
    await this.write(rest);
    return true;
  }

  private async write(connections: GitConnection[]): Promise<void> {
    const file = join(this.dir, STORE);
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    const body: StoreFile = { schemaVersion: 1, connections };
    await writeFile(temp, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
    await chmod(temp, 0o600);
    await rename(temp, file);
  }
}
