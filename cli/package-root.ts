/** Moved to core/ (test helpers of every wing and the benches find the package root too). */
export { packageRoot, packageVersion } from '../core/package-root.js';
