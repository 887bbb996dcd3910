/**
 * The published snapshot over a real repository: the export of the folder at the branch head,
 * a strong ETag that changes only with what is served, heads looked up at most once per
 * refresh interval (concurrent reads share one lookup), and unpublished or invalid folders.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitRepository, openRepository } from './git/git-repository.js';
import { etagMatches, PublishedSnapshots } from './published-snapshot.js';
import type { ServerRow } from './store/control-store.js';
import { createServerRepo, FOLDER, petstore, type ServerRepo } from './testing/server-repo.js';

let repo: ServerRepo;
let git: GitRepository;
let server: ServerRow;

beforeAll(async () => {
  repo = await createServerRepo();
  git = await openRepository(repo.bare, { cacheDir: '/nonexistent' });
  server = {
    id: 'pets',
    repository: repo.bare,
    branch: 'main',
    path: FOLDER,
    webhook_secret_sealed: '',
    created_at: '',
  };
}, 30_000);
afterAll(() => repo?.cleanup());

describe('published snapshots', () => {
  it('serves the export at the head with a stable strong ETag, looking the head up once per interval', async () => {
    let now = 0;
    let heads = 0;
    const counted: GitRepository = {
      ...git,
      head: (branch) => {
        heads++;
        return git.head(branch);
      },
    };
    const snapshots = new PublishedSnapshots({
      repository: async () => counted,
      refreshMs: 1000,
      now: () => now,
    });
    const [a, b] = await Promise.all([snapshots.get(server), snapshots.get(server)]);
    expect(heads).toBe(1);
    expect(a).toBe(b);
    expect(a.published).toBe(true);
    const body = JSON.parse(a.body!) as { server: { server: { id: string } }; files: Record<string, string> };
    expect(body.server.server.id).toBe('pets');
    expect(Object.keys(body.files).some((f) => f.startsWith('.svc/'))).toBe(false);
    now = 999;
    await snapshots.get(server);
    expect(heads).toBe(1);

    // A commit that does not touch the folder: new head, same ETag.
    repo.push({ 'README.md': '# apis, again\n' }, 'readme');
    now = 1000;
    const c = await snapshots.get(server);
    expect(heads).toBe(2);
    expect(c.commit).not.toBe(a.commit);
    expect(c.etag).toBe(a.etag);

    // Unpublishing: the folder at the head is no longer published.
    const config = (await git.readFolder(c.commit, FOLDER))['config.yaml']!;
    repo.push(
      { [`${FOLDER}/config.yaml`]: config.replace('published: true', 'published: false') },
      'unpublish',
    );
    snapshots.invalidate('pets');
    const d = await snapshots.get(server);
    expect(d).toMatchObject({ published: false });
    expect(d.body).toBeUndefined();

    // An invalid folder is not served, and says why.
    repo.push({ [`${FOLDER}/config.yaml`]: 'schemaVersion: 1\n' }, 'break it');
    snapshots.invalidate('pets');
    const e = await snapshots.get(server);
    expect(e.published).toBe(false);
    expect(e.problem).toMatch(/not valid/);
    repo.push({ [`${FOLDER}/config.yaml`]: config, 'specs/petstore.yaml': petstore('v1') }, 'restore');
  });

  it('compares If-None-Match weakly (RFC 9110 13.1.2)', () => {
    expect(etagMatches('"abc"', '"abc"')).toBe(true);
    expect(etagMatches('"x", "abc"', '"abc"')).toBe(true);
    expect(etagMatches('*', '"abc"')).toBe(true);
    expect(etagMatches('W/"abc"', '"abc"')).toBe(true);
    expect(etagMatches('"x", W/"abc"', '"abc"')).toBe(true);
    expect(etagMatches('W/"abd"', '"abc"')).toBe(false);
    expect(etagMatches('"abc', '"abc"')).toBe(false);
    expect(etagMatches(undefined, '"abc"')).toBe(false);
  });
});
