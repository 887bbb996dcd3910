export { type FakeGitHub, startFakeGitHub } from './fake-github.js';
export { createTestRepo, type TestRepo } from './git-repo.js';
export {
  configYaml,
  endpoint,
  prefixed,
  serverFolder,
  type TestTool,
  toolYaml,
  withImport,
} from './server-folder.js';
