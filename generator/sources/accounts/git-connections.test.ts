/**
 * The connection store's key and sealing: each sealed secret opens only in the connection that
 * holds it; a store an older svc sealed unbound still reads and is resealed bound on the next
 * write; and a lost key file is not silently replaced while connections need it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadControlKey, secretBox } from '../../../core/secret-box.js';
import { ConnectionStore, type TokenConnection } from './git-connections.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-connections-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const token = (id: string, sealed: string): TokenConnection => ({ id, provider: 'token', token: sealed });
const stored = async () =>
  JSON.parse(await readFile(join(dir, 'git-connections.json'), 'utf8')) as {
    connections: TokenConnection[];
  };

describe('git connection store', () => {
  it('binds each sealed secret to its connection: a secret moved to another entry does not open', async () => {
    const store = await ConnectionStore.open(dir);
    await store.put(token('alpha', store.seal('alpha-secret')));
    await store.put(token('beta', store.seal('beta-secret')));
    const file = await stored();
    expect(file.connections.every((c) => c.token.startsWith('v2.'))).toBe(true);
    const again = await ConnectionStore.open(dir);
    expect(again.open(await tokenOf(again, 'alpha'))).toBe('alpha-secret');
    expect(again.open(await tokenOf(again, 'beta'))).toBe('beta-secret');

    const [alpha, beta] = file.connections;
    const rewrite = (a: string, b: string) =>
      writeFile(
        join(dir, 'git-connections.json'),
        JSON.stringify({ schemaVersion: 1, connections: [token('alpha', a), token('beta', b)] }),
      );
    // Someone who can write the file swaps the two sealed tokens: neither opens where it now is.
    await rewrite(beta!.token, alpha!.token);
    const swapped = await ConnectionStore.open(dir);
    const moved = await tokenOf(swapped, 'alpha');
    expect(() => swapped.open(moved)).toThrow(/cannot be opened for the connection/);
    // Or copies beta's into alpha's entry: it opens in neither (it is no longer clear whose it is).
    await rewrite(beta!.token, beta!.token);
    const copied = await ConnectionStore.open(dir);
    await copied.list();
    expect(() => copied.open(beta!.token)).toThrow(/does not belong to the connection/);
  });

  it('reads secrets an older svc sealed unbound, and reseals them bound at the next write', async () => {
    const box = secretBox(await loadControlKey(dir, undefined));
    await writeFile(
      join(dir, 'git-connections.json'),
      JSON.stringify({ schemaVersion: 1, connections: [token('old', box.seal('old-secret'))] }),
    );
    const store = await ConnectionStore.open(dir);
    const old = (await store.get('old')) as TokenConnection;
    expect(old.token.startsWith('v1.')).toBe(true);
    expect(store.open(old.token)).toBe('old-secret');
    await store.put(token('new', store.seal('new-secret')));
    const file = await stored();
    expect(file.connections.map((c) => c.token.slice(0, 3))).toEqual(['v2.', 'v2.']);
    const reopened = await ConnectionStore.open(dir);
    expect(reopened.open(await tokenOf(reopened, 'old'))).toBe('old-secret');
    expect(reopened.open(await tokenOf(reopened, 'new'))).toBe('new-secret');
  });

  it('refuses to make a new key while connections sealed with the lost one remain, and says how to recover', async () => {
    const store = await ConnectionStore.open(dir);
    await store.put(token('work', store.seal('s3cret')));
    await rm(join(dir, 'secret.key'));
    await expect(ConnectionStore.open(dir)).rejects.toMatchObject({
      code: 'USAGE',
      message: expect.stringMatching(
        /secret\.key, is missing, but .*git-connections\.json holds 1 connection\(s\) sealed with it \(work\).*Restore secret\.key from a backup.*move .*git-connections\.json aside and connect again/,
      ),
    });
    // Nothing was made or changed.
    await expect(readFile(join(dir, 'secret.key'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await stored()).connections).toHaveLength(1);
    // With the connections moved aside, a new key is made as before.
    await rm(join(dir, 'git-connections.json'));
    await expect(ConnectionStore.open(dir)).resolves.toBeInstanceOf(ConnectionStore);
  });
});

async function tokenOf(store: ConnectionStore, id: string): Promise<string> {
  return ((await store.get(id)) as TokenConnection).token;
}
