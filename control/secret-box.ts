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
import { SvcError } from '../core/svc-error.js';

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

export function secretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new SvcError('USAGE', 'the control key must be 32 bytes (base64)');
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        'v1',
        iv.toString('base64'),
        cipher.getAuthTag().toString('base64'),
        body.toString('base64'),
      ].join('.');
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || body === undefined) {
        throw new SvcError(
          'INTERNAL',
          'a stored secret (webhook secret or source credential) is not in the sealed format',
        );
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      try {
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString(
          'utf8',
        );
      } catch (error) {
        throw new SvcError(
          'INTERNAL',
          'a stored secret (webhook secret or source credential) cannot be opened with this control key',
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
