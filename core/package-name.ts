/**
 * The name svc is published under on npm. Its command stays `svc`, but `npx svc` alone would
 * fetch an unrelated package named "svc", so every command written for people names this one.
 */
export const PACKAGE_NAME = 'svc-mcp';

/** How a folder's README runs svc where it may not be installed: `npx -p svc-mcp svc …`. */
export const NPX_SVC = `npx -p ${PACKAGE_NAME} svc`;
