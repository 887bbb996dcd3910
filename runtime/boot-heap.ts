/**
 * Keeps boot from inflating the idle runtime's memory. Loading the SDK and building a folder's
 * model allocate long-lived objects almost exclusively; V8 reads that high survival rate as a
 * reason to grow the young generation to its largest semi-spaces (16 MB each), whose pages then
 * stay resident: about 30 of the 105 MB an idle one-tool runtime held. Holding the young
 * generation at its initial size until the runtime listens keeps that memory unused. Once
 * listening, a runtime under load grows it again, 4x a step rather than V8's usual 2x: with 2x,
 * short bursts of 16 concurrent calls ran about 7% slower (more scavenges, more promotion)
 * before it had regrown; with 4x they ran as fast as with no hold at all (same maximum size).
 *
 * runtime/main.ts imports it before loading the runtime, start-runtime.ts first of all its
 * imports, so it runs before the SDK is. A semi-space flag the operator set (node options) is
 * left alone.
 */
import { setFlagsFromString } from 'node:v8';

const GROWTH_AFTER_BOOT = 4;

const operatorChoice = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) =>
  /semi[-_]space/.test(arg),
);

let held = false;
if (!operatorChoice) {
  setFlagsFromString('--semi-space-growth-factor=1');
  held = true;
}

/** Boot is over: let V8 grow the young generation again when the load calls for it. */
export function releaseBootHeap(): void {
  if (!held) return;
  held = false;
  setFlagsFromString(`--semi-space-growth-factor=${GROWTH_AFTER_BOOT}`);
}
