/**
 * The git connections of this user (spec 2.2, 2.6): GitHub App installations, GitLab OAuth
 * grants and access tokens for other hosts, kept in the user's svc config directory ($SVC_CONFIG_DIR, else ~/.config/svc), never in
 * a server folder. Secrets (a private key, a refresh token, a client secret) are sealed with
 * AES-256-GCM under a key file of mode 0600 beside the store; the rest is plain JSON so that
 * `svc git connections` can list them without opening anything.
 *
 * Every change rewrites the store atomically (temporary file, then rename): a refresh token that
 * was rotated is never lost half-written.
 *
 * Each sealed secret is bound to its connection: sealed (`v2`) with the connection's id, provider
 * and field as AES-GCM additional data, so a secret copied into another connection's entry does
 * not open there. Callers seal with `seal()` (unbound) and `put()` binds; secrets an older svc
 * sealed unbound (`v1`) still open, and are resealed bound at the next write of the store.
 *
 * A missing key file is made only when no connection needs it: a new key would silently strand
 * every stored connection, so `open()` refuses then and says how to recover.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isBoundSeal, loadControlKey, type SecretBox, secretBox } from '../../../core/secret-box.js';
import { SvcError } from '../../../core/svc-error.js';

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
const KEY_FILE = 'secret.key';

/** The sealed secret fields of each kind of connection. */
const SECRET_FIELDS = ['privateKey', 'clientSecret', 'refreshToken', 'token'] as const;
type SecretField = (typeof SECRET_FIELDS)[number];

/** The additional data a connection's secret is sealed with: what it belongs to. */
function bindingOf(connection: GitConnection, field: SecretField): string {
  return `svc git connection\u0000${connection.id}\u0000${connection.provider}\u0000${field}`;
}

function secretsOf(connection: GitConnection): [SecretField, string][] {
  const record = connection as unknown as Record<string, unknown>;
  return SECRET_FIELDS.flatMap((field) =>
    typeof record[field] === 'string' ? [[field, record[field] as string] as [SecretField, string]] : [],
  );
}

/** $SVC_CONFIG_DIR, else ~/.config/svc. */
export function svcConfigDir(env: Record<string, string | undefined>): string {
  return env.SVC_CONFIG_DIR || join(env.HOME || homedir(), '.config', 'svc');
}

export class ConnectionStore {
  /** Each bound secret seen in the store, with the binding of the one entry that holds it (null: several). */
  private readonly bindings = new Map<string, string | null>();

  private constructor(
    readonly dir: string,
    private readonly box: SecretBox,
  ) {}

  static async open(dir: string): Promise<ConnectionStore> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await refuseNewKeyOverConnections(dir);
    return new ConnectionStore(dir, secretBox(await loadControlKey(dir, undefined)));
  }

  /** Seals a new secret; `put()` binds it to the connection it is stored in. */
  seal(plain: string): string {
    return this.box.seal(plain);
  }

  /** Opens a secret of a connection read from this store (bound to that connection). */
  open(sealed: string): string {
    if (!isBoundSeal(sealed)) return this.box.open(sealed);
    const binding = this.bindings.get(sealed);
    if (!binding) {
      throw new SvcError(
        'USAGE',
        `a sealed secret in ${join(this.dir, STORE)} does not belong to the connection that holds it (copied from another entry?); connect it again with \`svc git connect\``,
        { place: { file: join(this.dir, STORE) } },
      );
    }
    try {
      return this.box.open(sealed, binding);
    } catch (error) {
      throw new SvcError(
        'USAGE',
        `a sealed secret in ${join(this.dir, STORE)} cannot be opened for the connection that holds it (another key, or a secret moved from another connection); connect it again with \`svc git connect\``,
        { place: { file: join(this.dir, STORE) }, cause: error },
      );
    }
  }

  async list(): Promise<GitConnection[]> {
    const connections = await readConnections(this.dir);
    for (const connection of connections) {
      for (const [field, value] of secretsOf(connection)) {
        if (!isBoundSeal(value)) continue;
        const binding = bindingOf(connection, field);
        const seen = this.bindings.get(value);
        this.bindings.set(value, seen === undefined || seen === binding ? binding : null);
      }
    }
    return connections;
  }

  /** The connection with each secret sealed bound to it (unbound ones resealed; bound ones checked). */
  private bind(connection: GitConnection): GitConnection {
    const bound = { ...connection } as unknown as Record<string, unknown>;
    for (const [field, value] of secretsOf(connection)) {
      const binding = bindingOf(connection, field);
      if (isBoundSeal(value)) {
        this.box.open(value, binding);
        continue;
      }
      try {
        bound[field] = this.box.seal(this.box.open(value), binding);
      } catch {
        // Not openable with this key: left as it is (it fails, with its message, where it is used).
      }
    }
    return bound as unknown as GitConnection;
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
    const bound = this.bind(connection);
    await this.write([...rest, bound].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
    await this.list();
  }

  /** Removes a connection; false when there was none of that id. */
  async remove(id: string): Promise<boolean> {
    const all = await this.list();
    const rest = all.filter((c) => c.id !== id);
    if (rest.length === all.length) return false;
    await this.write(rest);
    return true;
  }

  private async write(given: GitConnection[]): Promise<void> {
    // Secrets an older svc sealed unbound are resealed bound to their connection.
    const connections = given.map((c) =>
      secretsOf(c).some(([, value]) => !isBoundSeal(value)) ? this.bind(c) : c,
    );
    const file = join(this.dir, STORE);
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    const body: StoreFile = { schemaVersion: 1, connections };
    await writeFile(temp, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
    await chmod(temp, 0o600);
    await rename(temp, file);
  }
}

async function readConnections(dir: string): Promise<GitConnection[]> {
  let text: string;
  try {
    text = await readFile(join(dir, STORE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const parsed = JSON.parse(text) as StoreFile;
  return parsed.connections ?? [];
}

/**
 * The key file is gone but connections sealed with it remain: making a new key would strand them
 * all (and later fail with a confusing "cannot be opened"), so refuse, and say how to recover.
 */
async function refuseNewKeyOverConnections(dir: string): Promise<void> {
  try {
    await stat(join(dir, KEY_FILE));
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const sealed = (await readConnections(dir)).filter((c) => secretsOf(c).length > 0);
  if (sealed.length === 0) return;
  const store = join(dir, STORE);
  throw new SvcError(
    'USAGE',
    `the key that seals your git connections, ${join(dir, KEY_FILE)}, is missing, but ${store} holds ${sealed.length} connection(s) sealed with it (${sealed.map((c) => c.id).join(', ')}); svc will not make a new key, which would make them unreadable. Restore ${KEY_FILE} from a backup of ${dir}; or, to start over, move ${store} aside and connect again with \`svc git connect\``,
    { place: { file: join(dir, KEY_FILE) } },
  );
}
