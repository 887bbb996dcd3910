/**
 * The young-generation cap, in a process of its own (V8 flags are process-wide): after boot,
 * an allocation pattern with a high survival rate — the one that made V8 grow the young
 * generation to 2 × 16 MB under 16 concurrent calls — leaves it within the cap.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleEntry } from '../test/helpers/bundle-entry.js';
import { growthWithin, YOUNG_CAP_BYTES } from './boot-heap.js';

const MB = 1024 * 1024;

let dir: string;
let entry: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-boot-heap-'));
  const source = join(dir, 'probe.ts');
  await writeFile(
    source,
    `import { releaseBootHeap, youngGenerationBytes } from ${JSON.stringify(join(process.cwd(), 'runtime/boot-heap.ts'))};
releaseBootHeap();
// Survivors kept for a while, yielding as a server does between requests.
const keep: object[] = [];
for (let i = 0; i < 2_000_000; i++) {
  keep.push({ i, s: 'x' + i });
  if (keep.length > 20_000) keep.splice(0, 10_000);
  if (i % 2_000 === 0) await new Promise((r) => setImmediate(r));
}
process.stdout.write(String(youngGenerationBytes()));
`,
  );
  entry = join(dir, 'probe.mjs');
  await bundleEntry(source, entry);
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function run(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args, entry], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`exit ${code}`))));
  });
}

describe('boot-heap', () => {
  it('keeps the young generation within the cap under a high survival rate', async () => {
    const young = await run([]);
    expect(young).toBeGreaterThan(0);
    expect(young).toBeLessThanOrEqual(YOUNG_CAP_BYTES);
  });

  it("leaves an operator's semi-space flag alone", async () => {
    expect(await run(['--max-semi-space-size=8'])).toBe(16 * MB);
  });

  it('never lets one growth step pass the cap', () => {
    expect(growthWithin(8 * MB, 2 * MB)).toBe(4);
    expect(growthWithin(8 * MB, 4 * MB)).toBe(2);
    expect(growthWithin(8 * MB, 6 * MB)).toBe(1);
    expect(growthWithin(8 * MB, 8 * MB)).toBe(1);
    expect(growthWithin(64 * MB, 2 * MB)).toBe(4);
  });
});
