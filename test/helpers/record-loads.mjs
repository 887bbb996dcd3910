// Preloaded with `node --import`: records every module URL the process resolves, one per line,
// in the file named by SVC_RECORD_LOADS. The hooks run on Node's loader thread.
import { register } from 'node:module';

register(new URL('./record-loads-hooks.mjs', import.meta.url), {
  data: { out: process.env.SVC_RECORD_LOADS },
});
