/**
 * Which media types carry text: one answer for upstream bodies and for the folder's resources,
 * which used to disagree (`application/x-yaml` was text for one, bytes for the other).
 * Both take the essence: lower case, parameters stripped (`mediaTypeEssence`).
 */

export function mediaTypeEssence(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/**
 * Whether an actual body's type (an essence) is JSON. Not the generator's
 * `mediaRangeAdmitsJson`, which also counts the ranges a description declares (`*\/*`).
 */
export function isJsonMediaType(essence: string): boolean {
  return essence === 'application/json' || essence.endsWith('+json');
}

const TEXT_APPLICATION_TYPES = new Set([
  'application/xml',
  'application/javascript',
  'application/x-www-form-urlencoded',
  'application/yaml',
  'application/x-yaml',
]);

export function isTextMediaType(essence: string): boolean {
  return (
    essence.startsWith('text/') ||
    isJsonMediaType(essence) ||
    essence.endsWith('+xml') ||
    TEXT_APPLICATION_TYPES.has(essence)
  );
}
