/**
 * Keeps V8's young generation small, at boot and under load, because its pages stay resident.
 *
 * Boot: loading the SDK and building a folder's model allocate long-lived objects almost
 * exclusively; V8 reads that high survival rate as a reason to grow the young generation to its
 * largest semi-spaces (16 MB each): about 30 of the 105 MB an idle one-tool runtime held. So it is
 * held at its initial size (semi-spaces of 1 MB) until the runtime listens.
 *
 * Load: 16 concurrent calls grew it to the same 2 × 16 MB, and with the old generation's own
 * growth the runtime peaked at 140–166 MB (1,000 tools). Once listening, it may grow to
 * YOUNG_CAP_BYTES (2 × 4 MB) and no further: peak RSS under 16 clients about 110–116 MB.
 * Smaller still (2 × 1 MB) promoted so much that the old generation grew instead (peaks to
 * 159 MB). V8 fixes the semi-space maximum at start-up (`--max-semi-space-size`, which
 * setFlagsFromString cannot change afterwards), but reads the growth factor at each growth: so
 * after every garbage collection the factor is set to what the cap still allows (1: none).
 *
 * Importing this module changes nothing: the entry points hold the young generation
 * (runtime/hold-boot-heap.ts, imported first by runtime/main.ts, so it runs before the SDK is;
 * `svc serve` calls holdBootHeap) and startRuntime releases it once listening. A library user
 * importing `svc-mcp/runtime` keeps V8's flags as they were until startRuntime listens. A
 * semi-space flag the operator set (node options) is left alone, and so is the young generation then.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** Both semi-spaces together (V8 reports the young generation's size as both). */
export const YOUNG_CAP_BYTES = 8 * 1024 * 1024;
/** At most 4x a step: with 2x, bursts of 16 calls ran about 7% slower until it had regrown. */
const MAX_GROWTH = 4;

const operatorChoice = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) =>
  /semi[-_]space/.test(arg),
);

let growth = 0;
function setGrowth(factor: number): void {
  if (factor === growth) return;
  growth = factor;
  setFlagsFromString(`--semi-space-growth-factor=${factor}`);
}

function youngBytes(): number {
  for (const space of getHeapSpaceStatistics()) if (space.space_name === 'new_space') return space.space_size;
  return 0;
}

/** The growth factor that keeps the next growth within the cap (V8's factors are integers). */
export function growthWithin(cap: number, young: number): number {
  if (young <= 0) return 1;
  return Math.max(1, Math.min(MAX_GROWTH, Math.floor(cap / young)));
}

type BootHeapState = 'untouched' | 'held' | 'capped';
let state: BootHeapState = 'untouched';

/** Boot begins (entry points only): the young generation keeps its initial size until released. */
export function holdBootHeap(): void {
  if (operatorChoice || state !== 'untouched') return;
  setGrowth(1);
  state = 'held';
}

let capping: PerformanceObserver | undefined;

/** Boot is over: let the young generation grow again when the load calls for it, up to the cap. */
export function releaseBootHeap(): void {
  if (operatorChoice || state === 'capped') return;
  state = 'capped';
  const adjust = () => setGrowth(growthWithin(YOUNG_CAP_BYTES, youngBytes()));
  adjust();
  // A garbage collection is the only time V8 grows the young generation (or shrinks it when idle).
  capping = new PerformanceObserver(adjust);
  capping.observe({ entryTypes: ['gc'] });
}

/** What this module has done to V8's flags so far ('untouched' after a mere import). */
export function bootHeapState(): BootHeapState {
  return state;
}

/** The young generation's current size in bytes (tests, benchmarks). */
export function youngGenerationBytes(): number {
  return youngBytes();
}
