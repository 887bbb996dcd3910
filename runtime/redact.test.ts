import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from './redact.js';

describe('createRedactor', () => {
  const secret = 'p@ss "word"/+=';
  const redact = createRedactor([secret]);

  it('removes the secret and its URL, JSON and base64 encodings', () => {
    const samples = [
      `key=${secret}`,
      `?key=${encodeURIComponent(secret)}`,
      JSON.stringify({ key: secret }),
      `Basic ${Buffer.from(secret).toString('base64')}`,
    ];
    for (const sample of samples) {
      const out = redact(sample);
      expect(out).toContain(REDACTED);
      expect(out).not.toContain(secret);
      expect(out).not.toContain(encodeURIComponent(secret));
    }
  });

  it('keeps JSON parseable after redaction', () => {
    expect(JSON.parse(redact(JSON.stringify({ echoed: secret, other: 1 })))).toEqual({
      echoed: REDACTED,
      other: 1,
    });
  });

  it('is the identity without a secret', () => {
    expect(createRedactor([undefined, ''])('anything')).toBe('anything');
  });
});
