/**
 * Equality of JSON values as JSON means it: objects are equal whatever the order of their keys
 * (PostgreSQL's JSONB hands keys back in its own order), arrays element by element, and a key whose
 * value is `undefined` is absent (JSON.stringify drops it).
 */
export const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]))
  }
  const keysOf = (o: object) => Object.keys(o).filter((k) => (o as Record<string, unknown>)[k] !== undefined)
  const aKeys = keysOf(a)
  const bKeys = keysOf(b)
  return aKeys.length === bKeys.length &&
    aKeys.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}

/**
 * What is at `path` in a parsed JSON message (`undefined` where there is nothing), for reading a
 * provider's messages field by field without trusting their shape: `at(message, "channel", "alternatives", 0)`.
 */
export const at = (value: unknown, ...path: ReadonlyArray<string | number>): unknown =>
  path.reduce<unknown>((current, key) => (typeof current === "object" && current !== null ? Reflect.get(current, key) : undefined), value)

/** A JSON text parsed, or `undefined` when it is not JSON. */
export const parseJson = (text: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}
