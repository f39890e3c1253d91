/**
 * Reading the loosely shaped JSON a fake receives (media-stream messages, API bodies) without casts:
 * `parse` never throws, `at` walks a path and `text` / `number` read a leaf of the expected type.
 */

/** The JSON value of `text`, or `undefined` when it is not JSON. */
export const parse = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** Whether `value` is a JSON object (not an array). */
export const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The value at `path` below `value` (`at(message, "media", "payload")`), `undefined` when absent. */
export const at = (value: unknown, ...path: ReadonlyArray<string>): unknown => {
  let current = value
  for (const key of path) {
    if (!isObject(current)) return undefined
    current = current[key]
  }
  return current
}

/** The string at `path`, if it is one. */
export const text = (value: unknown, ...path: ReadonlyArray<string>): string | undefined => {
  const found = at(value, ...path)
  return typeof found === "string" ? found : undefined
}

/** The number at `path`, if it is one. */
export const number = (value: unknown, ...path: ReadonlyArray<string>): number | undefined => {
  const found = at(value, ...path)
  return typeof found === "number" ? found : undefined
}
