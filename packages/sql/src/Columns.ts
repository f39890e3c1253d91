/**
 * Decoding of column values that the two drivers return differently (booleans: 0/1 vs true/false;
 * JSON: text vs parsed), and encoding of values for binding (better-sqlite3 binds no booleans or objects).
 */
export const bool = (value: unknown): boolean => value === true || value === 1 || value === "1" || value === "t"

export const boolParam = (value: boolean): number => (value ? 1 : 0)

export const json = <A = unknown>(value: unknown): A =>
  (typeof value === "string" ? JSON.parse(value) : value) as A

export const jsonOrNull = <A = unknown>(value: unknown): A | null =>
  value === null || value === undefined ? null : json<A>(value)

export const jsonParam = (value: unknown): string | null =>
  value === null || value === undefined ? null : JSON.stringify(value)

export const int = (value: unknown): number => (typeof value === "number" ? value : Number(value))

export const intOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : int(value))

export const ts = (value: unknown): string => (value instanceof Date ? value.toISOString() : String(value))

export const tsOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : ts(value))
