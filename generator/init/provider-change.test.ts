import { describe, expect, it } from 'vitest';
import type { FolderModel } from '../../folder/model.js';
import type { SvcConfig } from '../../schemas/types.js';
import { README_SIGNATURE } from '../render/index.js';
import { describeProviderChange, planProviderChange, withoutOAuth } from './provider-change.js';

const config: SvcConfig = {
  schemaVersion: 1,
  server: { id: 'pets', name: 'Default', published: false },
  app: { name: 'Pets', provider: 'openapi' },
  source: { kind: 'openapi', location: 'a.yaml' },
  auth: { mode: 'user_oauth', hasAuthSecret: false },
  apiBaseUrl: 'https://api.example',
  requiredEnv: [],
  oauth: { authorizeUrl: 'https://idp.example/a', tokenUrl: 'https://idp.example/t', scopes: [] },
};

describe('planProviderChange', () => {
  it('drops tools, bookkeeping and generated files, keeps content and a README of the user', () => {
    const files = {
      'config.yaml': 'x',
      'README.md': 'my own notes',
      'docker-compose.yml': 'x',
      '.env.example': 'x',
      'Tools/a.yaml': 'x',
      'Tools/openapi.json': '{}',
      '.svc/history/000001.json': '{}',
      '.svc/history/000002.json': '{}',
      '.svc/written.json': '{}',
      'Skills/s.md': 'skill',
      'Docs/guide.md': 'doc',
    };
    const folder = { config, tools: [{ file: 'Tools/a.yaml' }] } as unknown as FolderModel;
    const plan = planProviderChange(files, folder);
    expect(plan).toEqual({
      kept: { 'README.md': 'my own notes', 'Skills/s.md': 'skill', 'Docs/guide.md': 'doc' },
      tools: ['Tools/a.yaml'],
      imports: 2,
      oauth: true,
    });
    expect(
      planProviderChange({ ...files, 'README.md': `x ${README_SIGNATURE}` }, folder).kept,
    ).not.toHaveProperty('README.md');
    expect(describeProviderChange(plan, 'openapi', 'app_builder').join('\n')).toContain('1 tool (Tools/)');
    expect(withoutOAuth(config)).not.toHaveProperty('oauth');
  });
});
