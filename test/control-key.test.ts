/**
 * The control key (`<data>/secret.key`) seals every server's webhook secret: deleting it must not
 * silently make a new one (every webhook would then fail as unsigned), so the service refuses to
 * start and says how to recover; restoring the file or giving SVC_CONTROL_KEY starts it again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openControlStore, startControl } from '../control/index.js';
import { secretBox } from '../core/secret-box.js';

const data = mkdtempSync(join(tmpdir(), 'svc-control-key-'));
afterAll(() => rmSync(data, { recursive: true, force: true }));

it('refuses to make a new control key while servers hold secrets sealed with the lost one', async () => {
  const quiet = { log() {} };
  const first = await startControl({ port: 0, dataDir: data, worker: false, logger: quiet });
  await first.close();
  const key = await readFile(join(data, 'secret.key'), 'utf8');
  const store = await openControlStore({ dataDir: data });
  await store.addServer({
    id: 'pets',
    repository: '/nowhere',
    branch: 'main',
    path: '.',
    webhook_secret_sealed: secretBox(Buffer.from(key.trim(), 'base64')).seal('whsec_x'),
  });
  await store.close();

  await rm(join(data, 'secret.key'));
  await expect(startControl({ port: 0, dataDir: data, worker: false, logger: quiet })).rejects.toMatchObject({
    code: 'USAGE',
    message: expect.stringMatching(
      /the control key .*secret\.key is missing, but 1 registered server\(s\) have webhook secrets sealed with it \(pets\); svc will not make a new key.*Restore secret\.key from a backup.*SVC_CONTROL_KEY/,
    ),
  });
  await expect(readFile(join(data, 'secret.key'))).rejects.toMatchObject({ code: 'ENOENT' });

  // Given as SVC_CONTROL_KEY, or restored, the key opens the service again.
  const viaEnv = await startControl({
    port: 0,
    dataDir: data,
    worker: false,
    logger: quiet,
    controlKey: key.trim(),
  });
  await viaEnv.close();
  await writeFile(join(data, 'secret.key'), key, { mode: 0o600 });
  const restored = await startControl({ port: 0, dataDir: data, worker: false, logger: quiet });
  await restored.close();
});
