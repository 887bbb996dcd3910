/**
 * The GitLab browser flow against the loopback GitLab stand-in, with fetch playing the browser:
 * the authorize URL carries an S256 challenge and a loopback redirect, the code is traded once
 * with the verifier, a redirect without this run's state is turned away, a denial and a timeout
 * end the flow with a clear error, and the loopback port is closed afterwards. (The same flow
 * through a real Chromium and the CLI: test/git-connect-gitlab-browser.test.ts.)
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { SvcError } from '../../../core/svc-error.js';
import { gitlabBrowserFlow, pkcePair } from './gitlab-browser-flow.js';
import { type GitlabStandIn, startGitlabStandIn } from '../testing/gitlab-stand-in.js';

let gitlab: GitlabStandIn | undefined;
afterEach(async () => {
  await gitlab?.close();
  gitlab = undefined;
});

/** Reads the consent page as a browser would and returns the link with the given id. */
async function consentLink(url: string, id: 'authorize' | 'deny'): Promise<string> {
  const html = await (await fetch(url)).text();
  const href = new RegExp(`id="${id}" href="([^"]+)"`).exec(html)?.[1];
  if (!href) throw new Error(`no ${id} link on ${html}`);
  return href.replaceAll('&amp;', '&');
}

describe('gitlabBrowserFlow', () => {
  it('trades the code and its PKCE verifier for a refresh token, and closes the loopback port', async () => {
    gitlab = await startGitlabStandIn();
    let callback = '';
    const flow = gitlabBrowserFlow({
      instance: gitlab.url,
      clientId: 'app-1',
      onUrl: (url) => {
        void consentLink(url, 'authorize').then(async (href) => {
          callback = href;
          // A request without this run's state (another page, a forged redirect) changes nothing.
          const forged = new URL(href);
          forged.searchParams.set('state', 'guessed');
          expect((await fetch(forged)).status).toBe(404);
          const answer = await fetch(href);
          expect(answer.status).toBe(200);
          expect(await answer.text()).toContain('svc is connected');
        });
      },
    });
    const { refreshToken } = await flow;
    expect(gitlab.live.has(refreshToken)).toBe(true);
    const [asked] = gitlab.authorizations;
    expect(asked).toMatchObject({ client_id: 'app-1', response_type: 'code', code_challenge_method: 'S256' });
    expect(asked?.redirect_uri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(asked?.scope).toBe('read_repository read_api');
    expect(asked?.state?.length).toBeGreaterThanOrEqual(22);
    // The port is closed once the grant is in.
    await expect(fetch(callback)).rejects.toThrow();
    expect(gitlab.refusedCodes).toEqual([]);
  });

  it("a denial ends the flow with GitLab's error, and nothing is granted", async () => {
    gitlab = await startGitlabStandIn();
    const stand = gitlab;
    const error = await gitlabBrowserFlow({
      instance: stand.url,
      clientId: 'app-1',
      onUrl: (url) => void consentLink(url, 'deny').then((href) => fetch(href)),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).message).toBe('GitLab did not grant access: access_denied');
    expect(stand.live.size).toBe(0);
  });

  it('gives up after the timeout when the browser never comes back', async () => {
    gitlab = await startGitlabStandIn();
    const error = await gitlabBrowserFlow({
      instance: gitlab.url,
      clientId: 'app-1',
      timeoutMs: 200,
      onUrl: () => {},
    }).catch((e: unknown) => e);
    expect((error as SvcError).message).toContain('did not send the browser back to svc in time');
  });

  it('a code the instance refuses (not the one issued) is an error, not a grant', async () => {
    gitlab = await startGitlabStandIn();
    const error = await gitlabBrowserFlow({
      instance: gitlab.url,
      clientId: 'app-1',
      onUrl: (url) =>
        void consentLink(url, 'authorize').then((href) => {
          const wrong = new URL(href);
          wrong.searchParams.set('code', 'code-not-issued');
          return fetch(wrong);
        }),
    }).catch((e: unknown) => e);
    expect((error as SvcError).message).toBe('GitLab refused the authorization code (invalid_grant)');
    expect(gitlab.refusedCodes).toEqual(['code-not-issued']);
  });
});

describe('pkcePair', () => {
  it('makes a fresh 43-character verifier and its S256 challenge', () => {
    const a = pkcePair();
    const b = pkcePair();
    expect(a.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.verifier).not.toBe(b.verifier);
    expect(a.challenge).toBe(createHash('sha256').update(a.verifier).digest('base64url'));
  });
});
