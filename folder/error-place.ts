/** Error places carry only what is known, so they compare and serialize cleanly. */
export function definedOnly<T extends object>(place: T): T {
  return Object.fromEntries(Object.entries(place).filter(([, v]) => v !== undefined)) as T;
}
