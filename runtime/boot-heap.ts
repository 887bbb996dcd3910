/**
 * Keeps boot from inflating the idle runtime's memory. Loading the SDK and building a folder's
 * model allocate long-lived objects almost exclusively; V8 reads that high survival rate as a
 * reason to grow the young generation to its largest semi-spaces (16 MB each), whose pages then
 * stay resident: about 30 of the 105 MB an idle one-tool runtime held. Holding the young
 * generation at its initial size until the runtime listens keeps that memory unused; from then
 * on V8 sizes it as usual (a runtime under load grows it again, for throughput).
 *
 * Imported first by start-runtime.ts so this runs before the SDK is evaluated. A semi-space
 * flag the operator set (node options) is left alone.
 */
import { setFlagsFromString } from 'node:v8';

const V8_DEFAULT_GROWTH = 2;

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
  setFlagsFromString(`--semi-space-growth-factor=${V8_DEFAULT_GROWTH}`);
}
