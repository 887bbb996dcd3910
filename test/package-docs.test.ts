/**
 * The docs install svc by its npm name: `npx svc` alone would run an unrelated package called svc.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { NPX_SVC, PACKAGE_NAME } from '../core/package-name.js';

const read = (file: string) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');

describe('install instructions', () => {
  it('README says how to install svc into another repository and how to run it once', () => {
    const readme = read('README.md');
    expect(readme).toContain(`npm i -D ${PACKAGE_NAME}`);
    expect(readme).toContain(`${NPX_SVC} <command>`);
  });

  it('the GitHub Action docs run the CLI by its package', () => {
    expect(read('docs/github-action.md')).toContain(`${NPX_SVC} diff <folder> --format markdown`);
  });

  it('the GitLab template installs the svc-mcp package', () => {
    const yaml = /```yaml\n([\s\S]*?)```/.exec(read('docs/gitlab-ci.md'))?.[1] ?? '';
    const template = YAML.parse(yaml) as {
      variables: Record<string, string>;
      '.svc': { before_script: string[] };
    };
    expect(template.variables.SVC_PACKAGE).toBe(PACKAGE_NAME);
    expect(template['.svc'].before_script.join('\n')).toContain('"$SVC_PACKAGE"');
  });
});
