/**
 * The MCP client's side of OAuth as a host keeps it (in memory), and a person signing in at
 * oidc-provider's own login and consent pages in a fresh headless Chromium.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import type { BrowserContext } from 'playwright-core';
import { freshChromiumContext } from './headless-chromium.js';

/** The MCP client's redirect URI: nothing listens there, the browser's request is intercepted. */
export const REDIRECT = 'http://127.0.0.1:1/mcp-client/callback';

/** The MCP client's side of OAuth, in memory, as a host keeps it. */
export class MemoryAuthProvider implements OAuthClientProvider {
  client: { client_id: string } | undefined;
  saved: { access_token: string; refresh_token?: string } | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(readonly fixedClientId?: string) {}
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: 'svc user_oauth test',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.fixedClientId ? { client_id: this.fixedClientId } : this.client;
  }
  saveClientInformation(info: { client_id: string }) {
    this.client = info;
  }
  tokens() {
    return this.saved as never;
  }
  saveTokens(tokens: { access_token: string; refresh_token?: string }) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  discovery: unknown;
  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery as never;
  }
  invalidateCredentials(scope: string) {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'client') this.client = undefined;
  }
}

/**
 * A person signs in at oidc-provider's own pages in a fresh browser context (no cookie of an
 * earlier sign-in); returns the client's callback URL. Call closeSharedChromium() after the file.
 */
export async function browserSignIn(authorizationUrl: URL, login: string): Promise<URL> {
  const context: BrowserContext = await freshChromiumContext();
  try {
    let callback: string | undefined;
    let arrived!: () => void;
    const done = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    await context.route(`${REDIRECT}**`, async (route) => {
      callback = route.request().url();
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'signed in' });
      arrived();
    });
    const page = await context.newPage();
    await page.goto(authorizationUrl.href);
    await page.fill('input[name=login]', login);
    await page.fill('input[name=password]', 'any-password');
    await page.click('button[type=submit]');
    await page.waitForSelector('input[name=prompt][value=consent]', { state: 'attached' });
    await page.click('button[type=submit]');
    await done;
    return new URL(callback!);
  } finally {
    await context.close();
  }
}
