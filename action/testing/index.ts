export { type FakeGitHub, startFakeGitHub } from './fake-github.js';
export { createTestRepo, type TestRepo } from '../../generator/sources/testing/git-test-repo.js';
export {
  configYaml,
  endpoint,
  prefixed,
  serverFolder,
  type TestTool,
  toolYaml,
  withImport,
} from '../../generator/testing/server-folder.js';
