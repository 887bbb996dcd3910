/**
 * Secret redaction. The upstream secret must never reach a response, a log line or an
 * error, even when the upstream echoes it back; every text that leaves the runtime and may
 * contain upstream bytes passes through a Redactor.
 */
export type Redactor = (text: string) => string;

export const REDACTED = '[REDACTED]';

/** Replaces every occurrence of each secret (and its common encodings) with [REDACTED]. */
export function createRedactor(secrets: readonly (string | undefined)[]): Redactor {
  const needles = new Set<string>();
  for (const secret of secrets) {
    // Very short secrets would redact ordinary text; they are still replaced, since leaking wins over noise.
    if (!secret) continue;
    needles.add(secret);
    needles.add(encodeURIComponent(secret));
    needles.add(JSON.stringify(secret).slice(1, -1));
    needles.add(Buffer.from(secret).toString('base64').replace(/=+$/, ''));
  }
  const list = [...needles].filter((n) => n.length > 0).sort((a, b) => b.length - a.length);
  if (list.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const needle of list) if (out.includes(needle)) out = out.split(needle).join(REDACTED);
    return out;
  };
}
