/**
 * `svc git connect gitlab --browser` end to end in a real headless Chromium (Debian's
 * `chromium`, driven by playwright-core): svc prints GitLab's authorize page, the browser opens it
 * and approves, GitLab (the loopback stand-in) sends the browser back to svc's loopback port, svc
 * trades the code with its PKCE verifier and keeps only the refresh token, sealed; the connection
 * then lists the user's projects.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/main.js';
import { type GitlabStandIn, startGitlabStandIn } from '../generator/sources/testing/gitlab-stand-in.js';
import { svc } from './helpers/run-cli.js';
import { chromiumMissing, launchChromium } from './helpers/headless-chromium.js';

if (chromiumMissing) console.warn(`gitlab browser flow: skipped: ${chromiumMissing}`);

describe.skipIf(chromiumMissing !== undefined)('svc git connect gitlab --browser in Chromium', () => {
  let root: string;
  let gitlab: GitlabStandIn;
  let browser: BrowserContext;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-gl-browser-'));
    gitlab = await startGitlabStandIn({
      projects: [{ path_with_namespace: 'team/api', default_branch: 'main', visibility: 'private' }],
    });
    browser = await launchChromium(root);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gitlab?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('approves in the browser, keeps the sealed refresh token, and lists the projects', async () => {
    const env = { SVC_CONFIG_DIR: join(root, 'config') };
    let stderr = '';
    let stdout = '';
    let approved: Promise<string> | undefined;
    const code = await runCli(
      [
        'git',
        'connect',
        'gitlab',
        '--browser',
        '--instance',
        gitlab.url,
        '--client-id',
        'app-1',
        '--id',
        'gl',
      ],
      {
        cwd: root,
        env,
        stdout: (t) => {
          stdout += t;
        },
        stderr: (t) => {
          stderr += t;
          const url = /^ {2}(http\S+)$/m.exec(stderr)?.[1];
          if (url && !approved) {
            approved = (async () => {
              const page = await browser.newPage();
              await page.goto(url);
              await page.click('#authorize');
              await page.waitForURL(/127\.0\.0\.1:\d+\/callback/);
              const text = (await page.textContent('body')) ?? '';
              await page.close();
              return text;
            })();
          }
        },
      },
    );
    expect(await approved).toContain('svc is connected');
    expect(stderr).toContain(`To connect svc to ${gitlab.url}, open this page in a browser and approve:`);
    expect(code).toBe(0);
    expect(stdout).toBe('Connected gl (gitlab).\n');
    // Connecting spent the browser grant's refresh token at once; the newest one is the only live one.
    expect(gitlab.refreshes).toBe(1);
    expect(gitlab.live).toEqual(new Set([gitlab.latestRefreshToken()]));
    const store = readFileSync(join(root, 'config', 'git-connections.json'), 'utf8');
    for (const secret of gitlab.secrets) expect(store.includes(secret)).toBe(false);
    expect(stderr + stdout).not.toContain(gitlab.latestRefreshToken());

    const repos = await svc(['git', 'repos', '--connection', 'gl'], { cwd: root, env });
    expect(repos.stderr).toBe('');
    expect(repos.stdout).toBe('team/api  (private)\n');
  }, 60_000);
});
