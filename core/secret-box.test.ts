import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadControlKey, secretBox } from './secret-box.js';

describe('secret box', () => {
  it('seals and opens; the sealed text does not contain the secret; another key or a change fails', () => {
    const box = secretBox(randomBytes(32));
    const sealed = box.seal('whsec_c2VjcmV0');
    expect(sealed).not.toContain('c2VjcmV0');
    expect(box.open(sealed)).toBe('whsec_c2VjcmV0');
    expect(box.seal('x')).not.toBe(box.seal('x'));
    expect(() => secretBox(randomBytes(32)).open(sealed)).toThrow(/cannot be opened/);
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64');
    expect(() => box.open(parts.join('.'))).toThrow();
  });

  it('makes the key file once (0600) and reuses it; SVC_CONTROL_KEY wins and must be 32 bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-key-'));
    try {
      const first = await loadControlKey(dir, undefined);
      expect(first).toHaveLength(32);
      expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
      expect(await loadControlKey(dir, undefined)).toEqual(first);
      const env = randomBytes(32);
      expect(await loadControlKey(dir, env.toString('base64'))).toEqual(env);
      await expect(loadControlKey(dir, 'c2hvcnQ=')).rejects.toThrow(/32 bytes/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
