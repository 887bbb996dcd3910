import { describe, expect, it } from 'vitest';
import { encodeStrict } from './percent-encode.js';
import { bytesHoldSecret, createRedactor, REDACTED, redactValue } from './redact.js';

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

describe('createRedactor: the encodings of issue 8', () => {
  const secret = 'S3cr3t/Tok+en=XyZ_9';
  const redact = createRedactor([secret]);
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const samples: Record<string, string> = {
    upper: secret.toUpperCase(),
    lowerPercent: encodeURIComponent(secret).toLowerCase(),
    strictQuery: encodeStrict(secret),
    basicUser: b64(`user:${secret}`),
    bearer: b64(`Bearer ${secret}`),
    offset1: b64(`x${secret}`),
    offset2: b64(`xy${secret}`),
    base64url: Buffer.from(secret).toString('base64url'),
    hexLower: Buffer.from(secret).toString('hex'),
    hexUpper: Buffer.from(secret).toString('hex').toUpperCase(),
    htmlDecimal: [...secret].map((c) => `&#${c.charCodeAt(0)};`).join(''),
    htmlHex: [...secret].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join(''),
    htmlPartial: secret.replace('/', '&#47;'),
    jsonAllEscaped: [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    jsonSlash: secret.replace('/', '\\/'),
    percentPartial: secret.replace('/', '%2f'),
  };
  const lines = (text: string, width: number, eol: string) =>
    text.match(new RegExp(`.{1,${width}}`, 'g'))!.join(eol);
  const utf16 = (text: string) => Buffer.from(text, 'utf16le').toString('latin1');
  /** Forms that no whole-form list holds: nested escapes, line-wrapped base64, UTF-16 read as bytes. */
  const wrappedAndNested: Record<string, string> = {
    percentTwice: encodeURIComponent(encodeURIComponent(secret)),
    percentEveryByteTwice: [...Buffer.from(secret)].map((b) => `%25${b.toString(16).toUpperCase()}`).join(''),
    percentSlashTwice: secret.replace('/', '%252F'),
    percentThrice: encodeURIComponent(encodeURIComponent(encodeURIComponent(secret))),
    mime: lines(b64(`${'A'.repeat(52)}${secret}`), 76, '\r\n'),
    pem: lines(b64(`${'A'.repeat(45)}${secret}`), 64, '\n'),
    pemJsonEscaped: lines(b64(`${'A'.repeat(40)}user:${secret}`), 64, '\\n'),
    base64urlOffset1: Buffer.from(`x${secret}`).toString('base64url'),
    utf16le: utf16(secret),
    utf16be: Buffer.from(secret, 'utf16le').swap16().toString('latin1'),
    utf16leInUtf8: Buffer.from(secret, 'utf16le').toString('utf8'),
    utf16lePercentSlash: utf16(secret.replace('/', '%2f')),
  };
  it.each(Object.entries(samples))('redacts %s', (_name, sample) => {
    const out = redact(`before ${sample} after`);
    expect(out).toContain(REDACTED);
    expect(out).not.toContain(sample);
    expect(out.startsWith('before ')).toBe(true);
  });

  it.each(Object.entries(wrappedAndNested))('redacts %s', (_name, sample) => {
    const out = redact(`before ${sample} after`);
    expect(out).toContain(REDACTED);
    expect(out.replace(/\r?\n|\0/g, '')).not.toContain(secret);
    expect(out.replace(/\r?\n|\0/g, '')).not.toContain(b64(secret).slice(4, 16));
  });

  it('derives the query form from the encoder that builds the URL', () => {
    const key = "Ke y!(x)*'z";
    expect(createRedactor([key])(`?api_key=${encodeStrict(key)}`)).toBe(`?api_key=${REDACTED}`);
  });

  it('leaves ordinary text alone', () => {
    const text = 'Bearer abc, dXNlcjpwYXNz, 0123456789abcdef, &amp; %2F %252F \\u0041';
    expect(redact(text)).toBe(text);
    const pem = `-----BEGIN KEY-----\n${lines(b64('x'.repeat(120)), 64, '\n')}\n-----END KEY-----\n`;
    expect(redact(pem)).toBe(pem);
    expect(redact('a\0b\0c')).toBe('a\0b\0c');
  });
});

describe('redactValue', () => {
  const redact = createRedactor(['S3cr3t/Tok+en=XyZ_9']);
  it('redacts decoded strings, keys and numbers, keeping __proto__ a plain key', () => {
    const value = JSON.parse(
      '{"a":"S3cr3t\\/Tok+en=XyZ_9","S3cr3t/Tok+en=XyZ_9":1,"__proto__":{"x":1},"n":[2]}',
    );
    const out = redactValue(redact, value) as Record<string, unknown>;
    expect(out.a).toBe(REDACTED);
    expect(Object.keys(out)).toEqual(['a', REDACTED, '__proto__', 'n']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(redactValue(createRedactor(['31415926']), { pi: 31415926 })).toEqual({ pi: REDACTED });
  });
  it('returns the very same value when nothing changed', () => {
    const value = { a: ['b', { c: 1 }] };
    expect(redactValue(redact, value)).toBe(value);
  });
});

describe('bytesHoldSecret', () => {
  const secret = 'pässwörd-42';
  const redact = createRedactor([secret]);
  it('finds the UTF-8 bytes and encoded forms inside binary data', () => {
    const wrap = (b: Buffer) => Buffer.concat([Buffer.from([0, 255, 7]), b, Buffer.from([1])]);
    expect(bytesHoldSecret(redact, wrap(Buffer.from(secret)))).toBe(true);
    expect(bytesHoldSecret(redact, wrap(Buffer.from(Buffer.from(`u:${secret}`).toString('base64'))))).toBe(
      true,
    );
    expect(bytesHoldSecret(redact, wrap(Buffer.from(encodeStrict(secret))))).toBe(true);
    expect(bytesHoldSecret(redact, wrap(Buffer.from('nothing here')))).toBe(false);
  });
});
