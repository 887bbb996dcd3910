import { describe, expect, it } from 'vitest';
import { isJsonMediaType, isTextMediaType, mediaTypeEssence } from './media-type.js';

describe('media types', () => {
  it('strip parameters and case to the essence', () => {
    expect(mediaTypeEssence(' Application/JSON ; charset=UTF-8')).toBe('application/json');
  });

  it('count JSON, XML, YAML, JavaScript, forms and text/* as text, and nothing else', () => {
    const text = [
      'text/plain',
      'text/csv',
      'application/json',
      'application/problem+json',
      'application/ld+json',
      'application/xml',
      'application/atom+xml',
      'application/yaml',
      'application/x-yaml',
      'application/javascript',
      'application/x-www-form-urlencoded',
    ];
    const bytes = [
      'application/octet-stream',
      'image/png',
      'application/pdf',
      'audio/mpeg',
      'application/zip',
    ];
    expect(text.filter(isTextMediaType)).toEqual(text);
    expect(bytes.filter(isTextMediaType)).toEqual([]);
    expect(['application/json', 'application/vnd.api+json', 'text/json'].map(isJsonMediaType)).toEqual([
      true,
      true,
      false,
    ]);
  });
});
