import { describe, expect, it } from 'vitest';
import { serverTitle } from './server-title.js';

describe('serverTitle', () => {
  it("shows the app's name, and a branch server's name beside it", () => {
    const app = { name: 'GitHub', provider: 'openapi' as const };
    expect(serverTitle({ app, server: { id: 'gh', name: 'Default', published: false } })).toBe('GitHub');
    expect(serverTitle({ app, server: { id: 'gh', name: 'staging', published: false } })).toBe(
      'GitHub (staging)',
    );
  });
});
