/**
 * Seals webhook secrets and source credentials at rest with AES-256-GCM. The service must read them back (an HMAC needs
 * the secret), so hashing is not an option; a database dump alone does not reveal them.
 *
 * The key comes from SVC_CONTROL_KEY (base64 of 32 bytes: set the same value on every replica of
 * a PostgreSQL deployment) or, for the embedded store, from `<data>/secret.key`, created once
 * with mode 0600.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from './svc-error.js';

export interface SecretBox {
  /**
   * Seals `plain`. With `bindTo` (what the secret belongs to, e.g. a connection's id and field) it
   * is sealed as `v2`, with `bindTo` as AES-GCM additional data: it then opens only for the same
   * `bindTo`, so a sealed value moved to another record does not open there.
   */
  seal(plain: string, bindTo?: string): string;
  /** Opens a `v1` value (unbound; `bindTo` is ignored) or a `v2` value sealed for `bindTo`. */
  open(sealed: string, bindTo?: string): string;
}

/** Whether a sealed value is bound to what it belongs to (v2) or not yet (v1, older stores). */
export function isBoundSeal(sealed: string): boolean {
  return sealed.startsWith('v2.');
}

export function secretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new SvcError('USAGE', 'the control key must be 32 bytes (base64)');
  return {
    seal(plain, bindTo) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      if (bindTo !== undefined) cipher.setAAD(Buffer.from(bindTo, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        bindTo !== undefined ? 'v2' : 'v1',
        iv.toString('base64'),
        cipher.getAuthTag().toString('base64'),
        body.toString('base64'),
      ].join('.');
    },
    open(sealed, bindTo) {
      const [version, iv, tag, body] = sealed.split('.');
      if ((version !== 'v1' && version !== 'v2') || !iv || !tag || body === undefined) {
        throw new SvcError(
          'INTERNAL',
          'a stored secret (webhook secret or source credential) is not in the sealed format',
        );
      }
      if (version === 'v2' && bindTo === undefined) {
        throw new SvcError('INTERNAL', 'a stored secret is bound to its record, and was opened without it');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      if (version === 'v2') decipher.setAAD(Buffer.from(bindTo!, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      try {
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString(
          'utf8',
        );
      } catch (error) {
        throw new SvcError(
          'INTERNAL',
          version === 'v2'
            ? 'a stored secret cannot be opened with this key for the record that holds it (another key, or a secret moved from another record)'
            : 'a stored secret (webhook secret or source credential) cannot be opened with this control key',
          {
            cause: error,
          },
        );
      }
    },
  };
}

/** The key from SVC_CONTROL_KEY, else the data directory's key file (created when missing). */
export async function loadControlKey(dataDir: string, envKey: string | undefined): Promise<Buffer> {
  if (envKey?.trim()) {
    const key = Buffer.from(envKey.trim(), 'base64');
    if (key.length !== 32) {
      throw new SvcError('USAGE', 'SVC_CONTROL_KEY must be the base64 of 32 bytes', {
        place: { field: 'SVC_CONTROL_KEY' },
      });
    }
    return key;
  }
  const file = join(dataDir, 'secret.key');
  try {
    return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    await writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
    }
    throw error;
  }
}
