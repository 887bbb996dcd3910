/**
 * The YAML a consumer loads: GitHub parses action.yml and every workflow, users copy the fenced examples of
 * the docs. Each must parse with the `yaml` package in strict mode (any error or warning fails), and the
 * inputs action.yml declares must be exactly the ones action/src/inputs.ts reads, with the same defaults.
 * Both sides come from the real files: action.yml parsed, the code run with an env that records what it reads.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { type Env, readInputs } from '../action/src/inputs.js';

const root = fileURLToPath(new URL('..', import.meta.url));

interface YamlSource {
  /** Where it is, as people find it: `path` or `path:line` for a fenced block. */
  name: string;
  text: string;
}

function strictParse(source: YamlSource): unknown {
  // A block of several documents (Kubernetes manifests, `---` between them) is read document by document.
  const docs = parseAllDocuments(source.text, { prettyErrors: true, strict: true, uniqueKeys: true });
  const all = Array.isArray(docs) ? docs : [docs];
  const problems = all.flatMap((doc) => [...doc.errors, ...doc.warnings].map((e) => e.message));
  expect(problems, `${source.name} must be valid YAML`).toEqual([]);
  return all.length === 1 ? all[0]!.toJS() : all.map((doc) => doc.toJS());
}

function filesUnder(dir: string, pattern: RegExp): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.sort().flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path, pattern) : pattern.test(entry) ? [path] : [];
  });
}

/** Every ```yaml / ```yml block of a Markdown file, named by the line its fence opens on. */
function fencedYaml(path: string): YamlSource[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const blocks: YamlSource[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(ya?ml)\b/i.exec(lines[i] ?? '');
    if (!open) continue;
    const fence = open[2] ?? '```';
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !(lines[j] ?? '').trim().startsWith(fence); j++) body.push(lines[j] ?? '');
    blocks.push({ name: `${relative(root, path)}:${i + 1}`, text: body.join('\n') });
    i = j;
  }
  return blocks;
}

const workflowFiles = filesUnder(join(root, '.github'), /\.ya?ml$/);
const markdownFiles = [join(root, 'README.md'), ...filesUnder(join(root, 'docs'), /\.md$/)];
const examples = markdownFiles.flatMap(fencedYaml);

function actionYaml(): { inputs: Record<string, { default?: unknown; required?: boolean }> } {
  const text = readFileSync(join(root, 'action.yml'), 'utf8');
  return strictParse({ name: 'action.yml', text }) as ReturnType<typeof actionYaml>;
}

/** The runner's env name for an input: upper-cased, spaces to underscores, hyphens kept. */
function envName(input: string): string {
  return `INPUT_${input.replace(/ /g, '_').toUpperCase()}`;
}

/** Run readInputs on `env`, recording every variable it looks up. */
function readRecording(env: Record<string, string>): { read: Set<string>; result: unknown } {
  const read = new Set<string>();
  const recording = new Proxy(env, {
    get(target, key) {
      if (typeof key === 'string') read.add(key);
      return Reflect.get(target, key);
    },
  }) as Env;
  return { read, result: readInputs(recording) };
}

/**
 * What the runner substitutes for `${{ … }}` defaults, and the same value where code outside a runner finds
 * it: the token is the one expression action.yml may use, and GITHUB_TOKEN is its documented stand-in.
 */
const EXPRESSIONS: Record<string, { value: string; env: Record<string, string> }> = {
  'github.token': { value: 'ghs_expression_value', env: { GITHUB_TOKEN: 'ghs_expression_value' } },
};

describe('YAML that GitHub and users load', () => {
  it('finds the files it checks', () => {
    expect(workflowFiles.length).toBeGreaterThan(0);
    expect(examples.length).toBeGreaterThan(0);
  });

  it('action.yml parses', () => {
    expect(Object.keys(actionYaml().inputs).length).toBeGreaterThan(0);
  });

  for (const path of workflowFiles) {
    it(`${relative(root, path)} parses`, () => {
      strictParse({ name: relative(root, path), text: readFileSync(path, 'utf8') });
    });
  }

  for (const example of examples) {
    it(`the example at ${example.name} parses and passes only declared inputs to the action`, () => {
      const value = strictParse(example);
      const declared = Object.keys(actionYaml().inputs);
      for (const step of actionSteps(value)) {
        for (const key of Object.keys(step.with ?? {}))
          expect(declared, `${example.name}: with.${key}`).toContain(key);
      }
    });
  }

  // The action sends source-token on push: a workflow on every branch's push would hand it to any
  // branch's config.yaml. Every documented workflow limits push to named branches, and the
  // source-token section says why.
  for (const example of examples) {
    const on = (strictParse(example) as { on?: unknown } | null)?.on;
    if (on === undefined) continue;
    it(`the workflow at ${example.name} limits on.push to the tracked branch`, () => {
      expect(on === 'push' || (Array.isArray(on) && on.includes('push')), 'a bare `on: push`').toBe(false);
      const push = (on as { push?: { branches?: unknown } })?.push;
      if (push === undefined) return;
      const branches = push?.branches;
      expect(Array.isArray(branches), `${example.name}: on.push.branches`).toBe(true);
      for (const branch of branches as string[])
        expect(branch, `${example.name}: a branch glob`).not.toMatch(/\*/);
    });
  }

  it('docs/github-action.md tells users to limit on: push to the tracked branch', () => {
    const text = readFileSync(join(root, 'docs/github-action.md'), 'utf8').replace(/\s+/g, ' ');
    expect(text).toContain('limit `on: push` to the tracked branch');
    expect(text).toMatch(/bare `on: push`/);
  });

  it('the workflows pass only declared inputs to this action', () => {
    const declared = Object.keys(actionYaml().inputs);
    for (const path of workflowFiles) {
      const value = strictParse({ name: relative(root, path), text: readFileSync(path, 'utf8') });
      for (const step of actionSteps(value)) {
        for (const key of Object.keys(step.with ?? {})) {
          expect(declared, `${relative(root, path)}: with.${key}`).toContain(key);
        }
      }
    }
  });
});

/** Steps that use this action: `uses: ./` in this repository, `uses: <owner>/<repo>@…` in the docs. */
function actionSteps(workflow: unknown): { with?: Record<string, unknown> }[] {
  type Step = { uses?: string; with?: Record<string, unknown> };
  const jobs = (workflow as { jobs?: Record<string, { steps?: Step[] }> } | null)?.jobs ?? {};
  return Object.values(jobs)
    .flatMap((job) => job?.steps ?? [])
    .filter((step) => step?.uses === './' || step?.uses?.startsWith('<owner>/<repo>@') === true);
}

describe('action.yml inputs against action/src/inputs.ts', () => {
  it('declares exactly the inputs the code reads', () => {
    const declared = Object.keys(actionYaml().inputs).map(envName).sort();
    const { read } = readRecording({});
    const readInputsNames = [...read].filter((k) => k.startsWith('INPUT_')).sort();
    expect(readInputsNames).toEqual(declared);
  });

  it('has the defaults the code applies: passing the declared default changes nothing', () => {
    for (const [name, input] of Object.entries(actionYaml().inputs)) {
      if (input.default === undefined) continue;
      const text = String(input.default);
      const expression = /^\$\{\{\s*([^}]+?)\s*\}\}$/.exec(text)?.[1];
      const substitute = expression === undefined ? undefined : EXPRESSIONS[expression];
      if (expression !== undefined) {
        expect(substitute, `${name}: default ${text} is an expression this test knows`).toBeDefined();
      }
      const value = substitute?.value ?? text;
      const context = substitute?.env ?? {};
      const omitted = readRecording({ ...context }).result;
      const given = readRecording({ ...context, [envName(name)]: value }).result;
      expect(given, `input "${name}" default ${JSON.stringify(text)}`).toEqual(omitted);
    }
  });
});
