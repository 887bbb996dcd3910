import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isSvcError } from '../core/svc-error.js';
import { secretBox } from '../core/secret-box.js';
import {
  openSourceCredential,
  parseSourceCredential,
  sealSourceCredential,
  sourceGitAccess,
} from './source-credential.js';

const TOKEN = 'tok_3b9f0e77';

function refusal(body: unknown): string {
  try {
    parseSourceCredential(body);
  } catch (error) {
    if (isSvcError(error) && error.code === 'USAGE') return error.message;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

describe('source credential', () => {
  it('takes {token, username?} and refuses anything else without quoting the token', () => {
    expect(parseSourceCredential({ token: TOKEN })).toEqual({ token: TOKEN });
    expect(parseSourceCredential({ token: TOKEN, username: 'oauth2' })).toEqual({
      token: TOKEN,
      username: 'oauth2',
    });
    for (const body of [
      undefined,
      {},
      { token: '' },
      { token: 42 },
      { token: ` ${TOKEN}` },
      { token: `${TOKEN}\nX-Evil: 1` },
      { token: TOKEN, username: 'a:b' },
      { token: TOKEN, username: '' },
      { token: TOKEN, password: 'p' },
    ]) {
      expect(refusal(body)).not.toContain(TOKEN);
    }
  });

  it('is sealed at rest and opens to what was set', () => {
    const box = secretBox(randomBytes(32));
    const sealed = sealSourceCredential(box, { token: TOKEN, username: 'reader' });
    expect(sealed).not.toContain(TOKEN);
    expect(sealed).not.toContain('reader');
    expect(openSourceCredential(box, sealed)).toEqual({ token: TOKEN, username: 'reader' });
    expect(() => openSourceCredential(secretBox(randomBytes(32)), sealed)).toThrow(/cannot be opened/);
  });

  it('gives the import the token and names the API call that sets it', () => {
    const access = sourceGitAccess('pets', { token: TOKEN, username: 'reader' }, '/cache');
    expect(access).toMatchObject({ token: TOKEN, username: 'reader', cacheDir: '/cache' });
    expect(access.credentialHint).toContain('PUT /v1/servers/pets/source-credential');
    expect(sourceGitAccess('pets', undefined, '/cache').token).toBeUndefined();
  });
});
