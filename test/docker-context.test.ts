/**
 * The images as `docker build` would make them, without an engine (none runs here): the build
 * context is this checkout's files less what `.dockerignore` excludes (Docker's own matching rules,
 * through @balena/dockerignore), every stage of the Dockerfile is replayed into a directory of its
 * own (COPY from the context or from another stage, `npm ci` as a link to the installed packages,
 * the esbuild bundling run as written), and each image's CMD is then run from its stage's files
 * alone. A source the context leaves out fails here as it would fail `docker build`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/built-cli.js';

// A CommonJS module whose typings declare a default export it does not have: take module.exports.
const dockerignore = createRequire(import.meta.url)('@balena/dockerignore') as () => {
  add(rules: string[]): { filter(paths: string[]): string[] };
};

interface Instruction {
  op: string;
  flags: Record<string, string>;
  args: string[];
  /** The instruction's text after its keyword (RUN's shell command, CMD's JSON). */
  rest: string;
}

interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

/** Dockerfile → stages: comments dropped, `\` continuations joined, `--flag=value` split off. */
function parseDockerfile(text: string): Stage[] {
  const logical = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, op = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const words = rest.split(/\s+/).filter(Boolean);
    const flags: Record<string, string> = {};
    while (words[0]?.startsWith('--')) {
      const [key = '', value = ''] = (words.shift() ?? '').slice(2).split('=');
      flags[key] = value;
    }
    const instruction = { op: op.toUpperCase(), flags, args: words, rest };
    if (instruction.op === 'FROM') {
      const [from = '', as, name] = words;
      stages.push({
        name: as?.toUpperCase() === 'AS' && name ? name : `#${stages.length}`,
        from,
        instructions: [],
      });
    } else stages.at(-1)?.instructions.push(instruction);
  }
  return stages;
}

/** The checkout's files (tracked, or new and not git-ignored), as `docker build .` would see them. */
function checkoutFiles(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f !== '' && existsSync(path.join(REPO_ROOT, f)));
}

function buildContext(files: readonly string[]): string[] {
  const rules = readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8').split(/\r?\n/);
  return dockerignore()
    .add(rules)
    .filter([...files]);
}

/** The context files a COPY source names: the file itself, or everything under the directory. */
function filesOf(source: string, context: readonly string[]): string[] {
  const clean = source.replace(/^\.\//, '').replace(/\/$/, '');
  if (clean === '.' || clean === '') return [...context];
  return context.filter((f) => f === clean || f.startsWith(`${clean}/`));
}

const dockerfile = parseDockerfile(readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8'));
const context = buildContext(checkoutFiles());
let scratch: string;
/** Stage name → the directory standing for its filesystem root. */
const roots = new Map<string, string>();
/** Stage name → its WORKDIR at the end (a stage built FROM another starts in that one's). */
const workdirs = new Map<string, string>();
/** Stage name → the packages its node_modules holds (what npm ci/install put there). */
const installed = new Map<string, Set<string>>();
/** Stage name → the bare package specifiers its bundles import (left external by esbuild). */
const bundleImports = new Map<string, Set<string>>();

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** The bare imports left in an ESM bundle (node: built-ins aside). */
function externalImports(bundle: string): Set<string> {
  const found = new Set<string>();
  const text = readFileSync(bundle, 'utf8');
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"'./][^"']*)["']/g)) {
    const spec = m[1] ?? '';
    if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
    found.add(packageOf(spec));
  }
  return found;
}

/** Replays one stage: COPY, WORKDIR, npm installs (as a link to this checkout's node_modules), esbuild. */
function replay(stage: Stage): void {
  const root = path.join(scratch, stage.name.replace(/[^\w-]/g, '_'));
  const parent = roots.get(stage.from);
  if (parent) cpSync(parent, root, { recursive: true, verbatimSymlinks: true });
  else mkdirSync(root, { recursive: true });
  roots.set(stage.name, root);
  installed.set(stage.name, new Set(installed.get(stage.from) ?? []));
  bundleImports.set(stage.name, new Set(bundleImports.get(stage.from) ?? []));
  let workdir = workdirs.get(stage.from) ?? '/';
  const inRoot = (p: string, base = workdir) => path.join(root, path.posix.resolve(base, p));
  for (const ins of stage.instructions) {
    if (ins.op === 'WORKDIR') {
      workdir = path.posix.resolve(workdir, ins.args[0] ?? '/');
      mkdirSync(inRoot('.'), { recursive: true });
    } else if (ins.op === 'COPY') {
      const dest = ins.args.at(-1) ?? '.';
      const sources = ins.args.slice(0, -1);
      for (const source of sources) {
        const target =
          dest.endsWith('/') || sources.length > 1
            ? path.posix.join(dest, path.posix.basename(source))
            : dest;
        if (ins.flags.from) {
          const from = roots.get(ins.flags.from);
          expect(from, `COPY --from=${ins.flags.from}: no such stage before ${stage.name}`).toBeDefined();
          const src = path.join(from!, source);
          expect(
            existsSync(src),
            `${stage.name}: COPY --from=${ins.flags.from} ${source}: not made there`,
          ).toBe(true);
          cpSync(src, inRoot(target), { recursive: true, verbatimSymlinks: true });
          if (source.endsWith('node_modules'))
            for (const p of installed.get(ins.flags.from) ?? []) installed.get(stage.name)!.add(p);
          for (const p of bundleImports.get(ins.flags.from) ?? []) bundleImports.get(stage.name)!.add(p);
          continue;
        }
        const files = filesOf(source, context);
        expect(
          files,
          `${stage.name}: COPY ${source}: the build context (after .dockerignore) has no such file`,
        ).not.toEqual([]);
        const single = files.length === 1 && files[0] === source.replace(/^\.\//, '');
        for (const file of files) {
          const rel = single ? '' : path.relative(source.replace(/\/$/, ''), file);
          const to = inRoot(single ? target : path.posix.join(target, rel));
          mkdirSync(path.dirname(to), { recursive: true });
          cpSync(path.join(REPO_ROOT, file), to);
        }
      }
    } else if (ins.op === 'RUN') {
      const cmd = ins.rest;
      if (/\bnpm (ci|install)\b/.test(cmd)) {
        const modules = inRoot('node_modules');
        if (!existsSync(modules)) symlinkSync(path.join(REPO_ROOT, 'node_modules'), modules, 'dir');
        const keep = /keep=\[([^\]]*)\]/.exec(cmd)?.[1];
        const names = keep
          ? [...keep.matchAll(/'([^']+)'/g)].map((m) => m[1] ?? '')
          : Object.keys(manifest.dependencies);
        installed.set(stage.name, new Set(names));
      }
      if (/\bnpx esbuild\b/.test(cmd)) {
        execFileSync('sh', ['-c', cmd], { cwd: inRoot('.'), stdio: 'pipe' });
        const out = /--outfile=(\S+)/.exec(cmd)?.[1] ?? '';
        for (const p of externalImports(inRoot(out))) bundleImports.get(stage.name)!.add(p);
      }
    }
  }
  workdirs.set(stage.name, workdir);
}

function command(stage: Stage): { argv: string[]; cwd: string } {
  const cmd = stage.instructions.filter((i) => i.op === 'CMD').at(-1);
  const argv = JSON.parse(cmd?.rest ?? '[]') as string[];
  const root = roots.get(stage.name)!;
  return { argv, cwd: path.join(root, workdirs.get(stage.name) ?? '/') };
}

/**
 * Runs an entry to its end. A server (it prints the URL it listens on, or its health URL) is asked
 * for its health once, then stopped with SIGTERM; `health` is the status it answered.
 */
function run(argv: readonly string[], cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string; health?: number }>(
    (resolve, reject) => {
      const [bin = 'node', ...rest] = argv;
      const child = spawn(bin === 'node' ? process.execPath : bin, rest, {
        cwd,
        env: { PATH: process.env.PATH ?? '', ...env },
      });
      let stdout = '';
      let stderr = '';
      let health: number | undefined;
      let asked = false;
      const onData = () => {
        const url =
          /listening on (http:\/\/\S+)/.exec(stdout)?.[1]?.replace(/\/?$/, '/healthz') ??
          /"health":"(http:[^"]+)"/.exec(stderr)?.[1];
        if (!url || asked) return;
        asked = true;
        fetch(url).then(
          (r) => {
            health = r.status;
            child.kill('SIGTERM');
          },
          () => child.kill('SIGTERM'),
        );
      };
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        onData();
      });
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        onData();
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr, ...(health ? { health } : {}) }));
    },
  );
}

beforeAll(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'svc-docker-context-'));
  for (const stage of dockerfile) replay(stage);
}, 120_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the Docker build context', () => {
  it('leaves out tests, dependencies and builds, and keeps the sources the stages copy', () => {
    expect(context).toContain('package.json');
    expect(context).toContain('runtime/main.ts');
    expect(context).toContain('control/main.ts');
    expect(context.filter((f) => /\.test\.ts$|^node_modules\/|^dist\/|^test\//.test(f))).toEqual([]);
  });

  it('has every COPY source of every stage (replayed in beforeAll), and names the stages it copies from', () => {
    expect(dockerfile.map((s) => s.name)).toEqual(
      expect.arrayContaining(['build', 'deps', 'control-build', 'control']),
    );
    expect([...roots.keys()]).toEqual(dockerfile.map((s) => s.name));
  });

  it('installs, in each image, every package its bundle imports', () => {
    for (const stage of dockerfile.filter((s) => s.instructions.some((i) => i.op === 'CMD'))) {
      const missing = [...(bundleImports.get(stage.name) ?? [])].filter(
        (p) => !installed.get(stage.name)?.has(p),
      );
      expect(missing, stage.name).toEqual([]);
    }
  });
});

describe('each image runs its CMD from its own files', () => {
  it('the control image makes a workspace token and starts (`node control.mjs`)', {
    timeout: 60_000,
  }, async () => {
    const control = dockerfile.find((s) => s.name === 'control')!;
    const { argv, cwd } = command(control);
    expect(argv).toEqual(['node', 'control.mjs']);
    const data = path.join(scratch, 'control-data');
    const token = await run([...argv, 'token', 'workspace', '--name', 'admin'], cwd, { SVC_DATA_DIR: data });
    // stderr carries only the token's id and how to revoke it; the token itself goes to stdout.
    expect(token.stderr).toMatch(
      /^workspace token id [\w-]+ \(revoke with svc control token revoke [\w-]+\)\n$/,
    );
    expect(token.code).toBe(0);
    expect(token.stdout).toMatch(/\S{20,}/);
    const served = await run(argv, cwd, { SVC_DATA_DIR: data, SVC_CONTROL_PORT: '0' });
    expect(served.stdout).toMatch(/svc control listening on http:/);
    expect(served.stderr).not.toMatch(/ERR_MODULE_NOT_FOUND|"level":"error"/);
    expect(served.health).toBe(200);
    expect(served.code).toBe(0);
  });

  it('the runtime image (the last stage) boots on a folder (`node runtime.mjs`)', {
    timeout: 60_000,
  }, async () => {
    const runtime = dockerfile.at(-1)!;
    const { argv, cwd } = command(runtime);
    expect(argv).toEqual(['node', 'runtime.mjs']);
    const served = await run(argv, cwd, {
      SVC_FOLDER_PATH: path.join(REPO_ROOT, 'fixtures/runtime/basic'),
      SVC_RUNTIME_MODE: 'standalone',
      SVC_UPSTREAM_SECRET: 'not-used',
      MCP_RUNTIME_PORT: '0',
    });
    expect(served.stderr).toMatch(/"runtime_started"/);
    expect(served.stderr).not.toMatch(/ERR_MODULE_NOT_FOUND|"boot_failed"/);
    expect(served.health).toBe(200);
    expect(served.code).toBe(0);
  });
});

describe('docs/control/docker-compose.yml', () => {
  it('mounts only paths the user names (no path of this repository), and builds images the Dockerfile has', () => {
    const text = readFileSync(path.join(REPO_ROOT, 'docs/control/docker-compose.yml'), 'utf8');
    const compose = parseYaml(text) as { services: Record<string, { volumes?: string[] }> };
    const named = new Set(Object.keys((parseYaml(text) as { volumes?: object }).volumes ?? {}));
    for (const [name, service] of Object.entries(compose.services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.startsWith('${')
          ? volume.slice(0, volume.indexOf('}') + 1)
          : (volume.split(':')[0] ?? '');
        expect(named.has(source) || /^\$\{[A-Z_]+(:?[?-][^}]*)?\}$/.test(source), `${name}: ${volume}`).toBe(
          true,
        );
      }
    }
    for (const target of text.matchAll(/--target (\S+)/g))
      expect(dockerfile.map((s) => s.name)).toContain(target[1]);
  });
});
