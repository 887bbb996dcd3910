import { describe, expect, it } from 'vitest';
import { loadFolder } from '../../folder/index.js';
import { compileConfig } from '../loaded-config.js';
import { scopesOf } from './oauth-facade.js';

const config = `schemaVersion: 1
server: { id: s, name: S, published: false }
app: { name: S, provider: manual }
source: { kind: manual }
auth: { mode: user_oauth, hasAuthSecret: false }
apiBaseUrl: https://api.example.test
requiredEnv: []
oauth: { authorizeUrl: https://idp.example.test/a, tokenUrl: https://idp.example.test/t, scopes: [offline_access] }
`;
const tool = (name: string, enabled: boolean, scopes: string[]) => `name: ${name}
description: d
enabled: ${enabled}
sortOrder: 0
origin: imported
endpoint: { method: GET, path: /${name}, scopes: [${scopes.join(', ')}] }
classification: get
annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true }
locations: {}
inputSchema: { type: object }
`;

describe('scopesOf', () => {
  it('asks for the folder scopes, then what every served tool needs — not what disabled tools need', () => {
    const loaded = loadFolder({
      'config.yaml': config,
      'Tools/a.yaml': tool('a', true, ['items:read']),
      'Tools/b.yaml': tool('b', true, ['items:read', 'items:write']),
      'Tools/c.yaml': tool('c', false, ['admin']),
    });
    if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
    expect(scopesOf(compileConfig(loaded.folder, 1))).toEqual([
      'offline_access',
      'items:read',
      'items:write',
    ]);
  });
});
