/**
 * Node's on-disk compile cache (module.enableCompileCache, Node 22.1+; the images run Node 24):
 * the second start of a process reuses V8's code for every module instead of compiling svc's
 * ~250 modules and its dependencies' again. Node keeps it in its own directory (the OS temp dir,
 * or NODE_COMPILE_CACHE) keyed by each file's content, and NODE_DISABLE_COMPILE_CACHE=1 turns it
 * off. On a Node without it (20), nothing happens; a cache that cannot be written is no error.
 * Called by the entry points only, before they import the command or the runtime.
 */
import module from 'node:module';

export function enableCompileCache(): void {
  const enable = (module as { enableCompileCache?: () => unknown }).enableCompileCache;
  try {
    enable?.();
  } catch {
    // Only an optimization.
  }
}
