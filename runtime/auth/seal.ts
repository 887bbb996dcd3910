/**
 * What the OAuth facade issues, sealed (JWE, dir + A256GCM) under SVC_OAUTH_KEY: no database,
 * replicas sharing the key read each other's tokens. Each kind has its own `typ`, so a sealed
 * code or client can never pass for an access token. Claims are bound to the issuer, and to the
 * client and resource where the kind has them; `exp` is always set.
 */

// jose loads on the first seal or open: a runtime without the OAuth facade never needs it
// (~40 ms of every `svc serve` start).
let jose: Promise<typeof import('jose')> | undefined;
const loadJose = () => {
  jose ??= import('jose');
  return jose;
};

export type SealKind = 'at' | 'rt' | 'code' | 'txn' | 'client';

export interface Sealer {
  seal(kind: SealKind, claims: Record<string, unknown>, ttlSeconds: number): Promise<string>;
  /** The claims, or undefined when the value is not one of ours, of this kind, unexpired. */
  open(kind: SealKind, sealed: string): Promise<Record<string, unknown> | undefined>;
}

export function createSealer(key: Uint8Array, issuer: string, now: () => number): Sealer {
  const seconds = () => Math.floor(now() / 1000);
  // Imported once: jose would otherwise import the raw key again on every seal and open.
  const cryptoKey = crypto.subtle.importKey('raw', new Uint8Array(key), 'AES-GCM', false, [
    'encrypt',
    'decrypt',
  ]);
  return {
    async seal(kind, claims, ttlSeconds) {
      const iat = seconds();
      const { EncryptJWT } = await loadJose();
      return new EncryptJWT(claims)
        .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', typ: `svc-${kind}` })
        .setIssuer(issuer)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ttlSeconds)
        .encrypt(await cryptoKey);
    },
    async open(kind, sealed) {
      if (sealed.length > 16_384) return undefined;
      const { jwtDecrypt } = await loadJose();
      try {
        const { payload } = await jwtDecrypt(sealed, await cryptoKey, {
          issuer,
          typ: `svc-${kind}`,
          currentDate: new Date(now()),
          keyManagementAlgorithms: ['dir'],
          contentEncryptionAlgorithms: ['A256GCM'],
          requiredClaims: ['exp'],
        });
        return payload as Record<string, unknown>;
      } catch {
        return undefined;
      }
    },
  };
}
