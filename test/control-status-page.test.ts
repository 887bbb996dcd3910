/**
 * The import status page in a real headless Chromium (Debian's `chromium`, driven by
 * playwright-core): sign in with a workspace token, watch a job started by a signed webhook go
 * from Pending to Complete on screen (the page polls the JSON API), then see the finished job's
 * step checklist and per-endpoint diff. The job is run by a second service instance on the same
 * embedded database, as a second replica would.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningControl, startControl } from '../control/index.js';
import { createServerRepo, FOLDER, petstore, type ServerRepo } from '../control/testing/server-repo.js';
import { chromiumMissing, closeSharedChromium, freshChromiumContext } from './helpers/headless-chromium.js';

if (chromiumMissing) console.warn(`control status page: skipped: ${chromiumMissing}`);

describe.skipIf(chromiumMissing !== undefined)('import status page in Chromium', () => {
  let root: string;
  let repo: ServerRepo;
  let web: RunningControl;
  let replica: RunningControl | undefined;
  let browser: BrowserContext;
  let pat: string;
  let secret: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-status-page-'));
    repo = await createServerRepo();
    // The instance the browser talks to runs no worker; jobs wait until the replica starts.
    web = await startControl({
      port: 0,
      dataDir: join(root, 'control'),
      worker: false,
      logger: { log() {} },
    });
    pat = (await web.store.createWorkspaceToken('browser')).token;
    const created = await fetch(`${web.url}/v1/servers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pat}`, 'content-type': 'application/json' },
      body: JSON.stringify({ repository: repo.bare, branch: 'main', path: FOLDER }),
    });
    expect(created.status).toBe(201);
    secret = ((await created.json()) as { webhookSecret: string }).webhookSecret;
    // A fresh browser context (no cookie, no cache) for every run.
    browser = await freshChromiumContext();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await closeSharedChromium();
    await replica?.close();
    await web?.close();
    repo?.cleanup();
    rmSync(root, { recursive: true, force: true });
  });

  it('shows a webhook-started job going from Pending to Complete, then its diff', async () => {
    const page = await browser.newPage();
    const statusUrl = `${web.url}/servers/pets/imports`;
    // Without a session the page asks for the workspace token.
    const login = await page.goto(statusUrl);
    expect(new URL(page.url()).pathname).toBe('/login');
    const headers = login!.headers();
    expect(headers['content-security-policy']).toContain("default-src 'none'");
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('no-referrer');
    await page.fill('input[name=token]', 'svc_pat_wrong');
    await page.click('button[type=submit]');
    await expect(page.locator('[role=alert]').textContent()).resolves.toMatch(/not a live workspace token/);
    await page.goto(statusUrl);
    await page.fill('input[name=token]', pat);
    await page.click('button[type=submit]');
    await page.waitForURL(statusUrl);
    await expect(page.locator('#jobs').textContent()).resolves.toContain('No import yet.');
    // The cookie is an opaque session id with an expiry, not the token.
    const session = (await browser.cookies(web.url)).find((c) => c.name === 'svc_session');
    expect(session).toBeDefined();
    expect(session!.value).not.toContain(pat);
    expect(session!.httpOnly).toBe(true);
    expect(session!.sameSite).toBe('Strict');
    expect(session!.expires).toBeGreaterThan(Date.now() / 1000);
    expect(session!.expires).toBeLessThanOrEqual(Date.now() / 1000 + 12 * 3600 + 5);

    repo.push({ 'specs/petstore.yaml': petstore('v2') }, 'petstore v2');
    const body = '{}';
    const id = `msg_${randomUUID()}`;
    const now = new Date();
    const hook = await fetch(`${web.url}/v1/hooks/generic/pets`, {
      method: 'POST',
      body,
      headers: {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': new StandardWebhook(secret).sign(id, now, body),
      },
    });
    expect(hook.status).toBe(202);
    const [jobId] = ((await hook.json()) as { jobIds: string[] }).jobIds;

    // The page picks the job up by polling, without a reload.
    await page.waitForSelector(`#jobs tr[data-job-id="${jobId}"][data-status="Pending"]`, {
      timeout: 10_000,
    });
    await page.waitForSelector('#job[data-status="Pending"]');

    replica = await startControl({
      port: 0,
      dataDir: join(root, 'control'),
      workerPollMs: 200,
      logger: { log() {} },
    });
    await page.waitForSelector(`#jobs tr[data-job-id="${jobId}"][data-status="Complete"]`, {
      timeout: 30_000,
    });
    await page.waitForSelector('#endpoints tr[data-endpoint]', { timeout: 10_000 });

    const steps = await page.$$eval('#steps li', (items) =>
      items.map((li) => [li.getAttribute('data-step'), li.getAttribute('data-state')]),
    );
    expect(steps).toEqual([
      ['fetch', 'complete'],
      ['import', 'complete'],
      ['commit', 'complete'],
      ['push', 'complete'],
    ]);
    const rows = await page.$$eval('#endpoints tr[data-endpoint]', (trs) =>
      trs.map((tr) => [tr.getAttribute('data-endpoint'), tr.getAttribute('data-kind')]),
    );
    expect(rows).toEqual(
      expect.arrayContaining([
        ['POST /pets', 'added'],
        ['DELETE /pets/{petId}', 'removed'],
        ['GET /pets/{petId}', 'changed'],
      ]),
    );
    await expect(page.locator('#job-title').textContent()).resolves.toMatch(/Complete/);
    const commit = await page.locator(`#jobs tr[data-job-id="${jobId}"] td:nth-child(6) code`).textContent();
    expect(repo.log()[0]).toContain('Svc-Import: true');
    expect(commit).toMatch(/^[0-9a-f]{7}$/);
    // The whole job id is shown: UUIDv7 ids of jobs queued together share their first characters.
    await expect(page.locator(`#jobs tr[data-job-id="${jobId}"] a`).textContent()).resolves.toBe(jobId);
    await expect(page.locator('#job-title').textContent()).resolves.toContain(jobId!);
    await page.close();
  }, 90_000);

  it('signs in to the server list, signs out, and refuses a forged sign-in or sign-out', async () => {
    const context = await freshChromiumContext();
    try {
      const page = await context.newPage();
      // Signing in without a page to return to lands on the server list (it was a 404).
      await page.goto(`${web.url}/login`);
      await page.fill('input[name=token]', pat);
      await page.click('button[type=submit]');
      await page.waitForURL(`${web.url}/servers`);
      await page.waitForSelector('#servers tr[data-server-id="pets"] a');
      await page.click('#servers tr[data-server-id="pets"] a');
      await page.waitForURL(`${web.url}/servers/pets/imports`);
      const cookie = (await context.cookies(web.url)).find((c) => c.name === 'svc_session')!.value;

      // A sign-out form without the session's CSRF token (as another site would post) is refused.
      const forged = await fetch(`${web.url}/logout`, {
        method: 'POST',
        headers: { cookie: `svc_session=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'csrf=forged',
        redirect: 'manual',
      });
      expect(forged.status).toBe(403);
      await page.reload();
      expect(new URL(page.url()).pathname).toBe('/servers/pets/imports');

      await page.click('#logout button[type=submit]');
      await page.waitForURL(`${web.url}/login`);
      expect((await context.cookies(web.url)).some((c) => c.name === 'svc_session')).toBe(false);
      await page.goto(`${web.url}/servers/pets/imports`);
      expect(new URL(page.url()).pathname).toBe('/login');
      // The old cookie value is dead on the server too.
      const replay = await fetch(`${web.url}/servers/pets/imports`, {
        headers: { cookie: `svc_session=${cookie}` },
        redirect: 'manual',
      });
      expect(replay.status).toBe(303);

      // A sign-in posted without the form's CSRF value (login CSRF) sets no session.
      const blind = await fetch(`${web.url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: pat }).toString(),
        redirect: 'manual',
      });
      expect(blind.status).toBe(403);
      expect(blind.headers.getSetCookie().some((c) => c.startsWith('svc_session='))).toBe(false);
      await page.close();
    } finally {
      await context.close();
    }
  }, 60_000);
});
