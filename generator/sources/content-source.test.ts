import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readContentDir } from './content-source.js';

const FIXTURE = 'fixtures/content';
const BROKEN = 'fixtures/content-broken';

describe('readContentDir', () => {
  test('reads the five kinds, capitalized or lowercase, returns capitalized sorted paths', async () => {
    const files = await readContentDir(FIXTURE);
    expect(files.map((f) => f.path)).toEqual([
      'Docs/api/v1/reference/errors.md',
      'Docs/changelog.md',
      'Docs/guides/webhooks.md',
      'Docs/intro.mdx',
      'Prompts/summarize-order.md',
      'Prompts/triage.md',
      'Resources/order-by-id.md',
      'Resources/order-schema.md',
      'Skills/refund-policy.md',
      'Skills/search-orders.md',
      'Widgets/order-card.html',
      'Widgets/order-card.json',
      'Widgets/status-badge.html',
    ]);
    expect(files.find((f) => f.path === 'Docs/intro.mdx')?.text).toMatch(/^import \{ Callout \}/);
  });

  test('a missing directory is SOURCE_NOT_FOUND', async () => {
    await expect(readContentDir('fixtures/no-such-content')).rejects.toMatchObject({
      code: 'SOURCE_NOT_FOUND',
    });
    await expect(readContentDir(`${FIXTURE}/README.md`)).rejects.toMatchObject({ code: 'SOURCE_NOT_FOUND' });
  });

  test('a symlinked file pointing outside is refused, naming it', async () => {
    await expect(readContentDir(`${BROKEN}/path-escape`)).rejects.toMatchObject({
      code: 'CONTENT_PATH_UNSAFE',
      place: { file: 'Docs/escape.md' },
    });
  });

  test('a symlinked content directory is refused, naming it', async () => {
    await expect(readContentDir(`${BROKEN}/path-escape-dir`)).rejects.toMatchObject({
      code: 'CONTENT_PATH_UNSAFE',
      place: { file: 'skills' },
    });
  });
});

describe('readContentDir limits', () => {
  let base: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'svc-content-'));
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  test('file size and file count caps', async () => {
    await mkdir(join(base, 'Docs'));
    await writeFile(join(base, 'Docs', 'a.md'), 'x'.repeat(200));
    await writeFile(join(base, 'Docs', 'b.md'), 'y');
    await expect(readContentDir(base, { maxFileBytes: 100 })).rejects.toMatchObject({
      code: 'SOURCE_TOO_LARGE',
      place: { file: 'Docs/a.md' },
    });
    await expect(readContentDir(base, { maxFiles: 1 })).rejects.toMatchObject({ code: 'SOURCE_TOO_LARGE' });
    expect(await readContentDir(base, { maxFiles: 2 })).toHaveLength(2);
  });

  test('Docs/ and docs/ holding the same page is an error naming both', async () => {
    await mkdir(join(base, 'Docs'));
    await mkdir(join(base, 'docs'));
    await writeFile(join(base, 'Docs', 'x.md'), 'a');
    await writeFile(join(base, 'docs', 'x.md'), 'b');
    await expect(readContentDir(base)).rejects.toMatchObject({ code: 'CONTENT_INVALID' });
  });

  test('a symlink inside the root is refused too: content is never read through links', async () => {
    await mkdir(join(base, 'Skills'));
    await writeFile(join(base, 'Skills', 'real.md'), '---\ndescription: d\n---\n');
    await symlink('real.md', join(base, 'Skills', 'alias.md'));
    await expect(readContentDir(base)).rejects.toMatchObject({ place: { file: 'Skills/alias.md' } });
  });
});
