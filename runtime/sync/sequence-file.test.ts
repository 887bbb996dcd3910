import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSequenceFile } from './sequence-file.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-state-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('openSequenceFile', () => {
  it('starts empty, and a reopened file holds the last record saved, with no temporary file left', async () => {
    const dir = join(tempDir(), 'state');
    const first = await openSequenceFile(dir, 'pets');
    expect(first.last).toBeUndefined();
    await first.save({ sequence: 7, commit: 'a'.repeat(40) });
    await first.save({ sequence: 9, commit: 'b'.repeat(40) });
    expect((await openSequenceFile(dir, 'pets')).last).toEqual({ sequence: 9, commit: 'b'.repeat(40) });
    expect(readdirSync(dir)).toEqual(['snapshot-pets.json']);
    // One record per server id.
    expect((await openSequenceFile(dir, 'crm')).last).toBeUndefined();
  });

  it('refuses a record it cannot read, naming the file, rather than forgetting the sequence', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'snapshot-pets.json'), '{"sequence": 12');
    await expect(openSequenceFile(dir, 'pets')).rejects.toMatchObject({
      code: 'USAGE',
      place: { field: 'SVC_STATE_DIR', file: join(dir, 'snapshot-pets.json') },
    });
  });
});
