/**
 * Signed snapshots (contracts/fleet.md): the control service signs what it serves with Ed25519,
 * and a runtime given the public key serves only what verifies. The signature covers the server
 * id, the commit, a sequence that only grows, and the SHA-256 of the exact body, in one line of
 * text each, so neither side needs a canonical form of anything but the body it already has.
 *
 * Headers of a snapshot answer: `Svc-Config-Commit`, `Svc-Snapshot-Sequence` (a decimal integer),
 * `Svc-Snapshot-Signature` (base64 of the 64-byte Ed25519 signature).
 */
import { createHash, type KeyObject, sign, verify } from 'node:crypto';

export const SNAPSHOT_COMMIT_HEADER = 'svc-config-commit';
export const SNAPSHOT_SEQUENCE_HEADER = 'svc-snapshot-sequence';
export const SNAPSHOT_SIGNATURE_HEADER = 'svc-snapshot-signature';
/** How a runtime names itself when it polls (the control service lists who fetched what). */
export const RUNTIME_ID_HEADER = 'svc-runtime-id';

export interface SignedSnapshot {
  serverId: string;
  commit: string;
  sequence: number;
  /** The snapshot body exactly as sent. */
  body: string;
}

export function signedText(s: SignedSnapshot): string {
  const digest = createHash('sha256').update(s.body).digest('base64url');
  return `svc-snapshot-v1\n${s.serverId}\n${s.commit}\n${s.sequence}\n${digest}\n`;
}

export function signSnapshot(privateKey: KeyObject, s: SignedSnapshot): string {
  return sign(null, Buffer.from(signedText(s)), privateKey).toString('base64');
}

export function verifySnapshot(publicKey: KeyObject, s: SignedSnapshot, signature: string): boolean {
  const bytes = Buffer.from(signature, 'base64');
  if (bytes.length !== 64) return false;
  try {
    return verify(null, Buffer.from(signedText(s)), publicKey, bytes);
  } catch {
    return false;
  }
}
