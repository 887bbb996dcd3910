/**
 * The control service's Ed25519 snapshot-signing key, `<data>/snapshot-signing.pem` (PKCS#8,
 * mode 0600), made on first start. `svc control key` prints its public half, which runtimes get
 * as SVC_SNAPSHOT_PUBLIC_KEY. Every instance of a replicated control service must share it.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from '../core/svc-error.js';

export const SIGNING_KEY_FILE = 'snapshot-signing.pem';

export interface SnapshotSigningKey {
  privateKey: KeyObject;
  /** SPKI PEM of the public key. */
  publicKeyPem: string;
}

function fromPem(pem: string, file: string): SnapshotSigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch (error) {
    throw new SvcError('USAGE', `${file} is not a PEM private key`, { place: { file }, cause: error });
  }
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new SvcError('USAGE', `${file} must hold an Ed25519 key`, { place: { file } });
  const publicKeyPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  return { privateKey, publicKeyPem };
}

export async function loadSigningKey(dataDir: string): Promise<SnapshotSigningKey> {
  const file = join(dataDir, SIGNING_KEY_FILE);
  try {
    return fromPem(await readFile(file, 'utf8'), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  try {
    await writeFile(file, pem, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process made it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      return fromPem(await readFile(file, 'utf8'), file);
    throw error;
  }
  return fromPem(pem, file);
}
