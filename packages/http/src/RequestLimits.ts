/**
 * The limits every request is held to before any handler sees it, as plain functions (the middleware
 * in `RequestGuard.ts` applies them). Documented in docs/security.md; change both together.
 *
 * - Body size per route: small for JSON, larger for agent definitions, the signed size for uploads.
 * - JSON nesting depth: deep nesting costs recursion further on (decoding, encoding, drivers).
 * - No NUL character (U+0000) in any string: PostgreSQL cannot store one in `text` or `jsonb`, so a NUL
 *   would fail the request late (after other writes) with a 500. It is refused everywhere with 422,
 *   never stripped: a NUL in a name or a context value is a broken or hostile client, and silently
 *   changing what it sent would hide that.
 * - No lone UTF-16 surrogate (`"\ud800"` without its pair): it is no character at all, PostgreSQL
 *   refuses it (a 500, late) and SQLite stores U+FFFD instead. Refused with 422 the same way, on both.
 */
import type { ValidationIssue } from "@agentline/api/Errors"

const KiB = 1024
const MiB = 1024 * KiB

/** Login and password changes: an e-mail and passwords. */
export const AUTH_BODY_LIMIT = 16 * KiB
/** Agent create and update: a definition of up to 1,000 nodes with their prompts. */
export const WORKFLOW_BODY_LIMIT = 4 * MiB
/** A recording to transcribe: a multipart body with one audio file of at most 5 MiB. */
export const TRANSCRIBE_BODY_LIMIT = 5 * MiB + 64 * KiB
/** Every other body (JSON settings, single calls, provider callbacks). */
export const DEFAULT_BODY_LIMIT = 256 * KiB
/** Deepest nesting of arrays and objects in a JSON body (the top-level value is level 1). */
export const MAX_JSON_DEPTH = 64

/**
 * How a route's body is taken: `Buffered` bodies are read whole (up to `maxBytes`) and checked before the
 * handler runs; `Streamed` bodies (contacts uploads) go to the handler unread, bounded by `maxBytes`
 * here and by the upload's signed size there.
 */
export type BodyRule =
  | { readonly _tag: "Buffered"; readonly maxBytes: number }
  | { readonly _tag: "Streamed"; readonly maxBytes: number }

const UPLOAD_PATH = /^\/api\/v1\/storage\/upload\//

export const bodyRule = (method: string, pathname: string, maxUploadBytes: number): BodyRule => {
  if (method === "PUT" && UPLOAD_PATH.test(pathname)) return { _tag: "Streamed", maxBytes: maxUploadBytes }
  if (pathname.startsWith("/api/v1/auth/")) return { _tag: "Buffered", maxBytes: AUTH_BODY_LIMIT }
  if (pathname.startsWith("/api/v1/workflow/")) return { _tag: "Buffered", maxBytes: WORKFLOW_BODY_LIMIT }
  if (pathname === "/api/v1/workflow-recordings/transcribe") return { _tag: "Buffered", maxBytes: TRANSCRIBE_BODY_LIMIT }
  return { _tag: "Buffered", maxBytes: DEFAULT_BODY_LIMIT }
}

/** `Content-Length` as a number; undefined when absent, NaN when it is not a length. */
export const declaredLength = (header: string | undefined): number | undefined =>
  header === undefined ? undefined : /^\s*[0-9]{1,16}\s*$/.test(header) ? Number(header) : Number.NaN

export const tooLargeDetail = (maxBytes: number): string =>
  `The request body is larger than ${maxBytes} bytes, the most this endpoint accepts; nothing was read or stored`

/**
 * Whether JSON text nests arrays and objects deeper than `max`, by one pass over the characters (no
 * parsing, no recursion), so it is safe on any input. Brackets inside strings do not count. Text that
 * is not JSON gives some answer; the parser reports it afterwards.
 */
export const jsonDepthExceeds = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

export const tooDeepIssue = (max: number): ValidationIssue => ({
  loc: ["body"],
  msg: `JSON nested deeper than ${max} levels of arrays and objects`,
  type: "json_too_deep",
  input: null,
  ctx: { max_depth: max }
})

const NUL = "\u0000"

const nulIssue = (loc: ReadonlyArray<string | number>, input: unknown, what: string): ValidationIssue => ({
  loc,
  msg: `${what} must not contain NUL characters (\\u0000)`,
  type: "string_nul",
  input,
  ctx: {}
})

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

export const hasLoneSurrogate = (text: string): boolean => LONE_SURROGATE.test(text)

const surrogateIssue = (loc: ReadonlyArray<string | number>, input: unknown, what: string): ValidationIssue => ({
  loc,
  msg: `${what} must be valid Unicode: it holds a lone UTF-16 surrogate (a \\ud800–\\udfff escape without its pair)`,
  type: "string_unpaired_surrogate",
  input,
  ctx: {}
})

const textIssue = (text: string, loc: ReadonlyArray<string | number>, what: string): ValidationIssue | undefined =>
  text.includes(NUL) ? nulIssue(loc, text, what) : hasLoneSurrogate(text) ? surrogateIssue(loc, text, what) : undefined

/**
 * Every string and object key holding a NUL or a lone surrogate inside a parsed JSON value, each with
 * its location under `root` (e.g. `["body", "initial_context", "name"]`). Iterative: depth is bounded
 * before, but no recursion is needed anyway.
 */
export const stringIssues = (value: unknown, root: ReadonlyArray<string | number>): Array<ValidationIssue> => {
  const issues: Array<ValidationIssue> = []
  const stack: Array<{ readonly value: unknown; readonly loc: ReadonlyArray<string | number> }> = [{ value, loc: root }]
  while (stack.length > 0) {
    const next = stack.pop()!
    if (typeof next.value === "string") {
      const issue = textIssue(next.value, next.loc, "text")
      if (issue !== undefined) issues.push(issue)
    } else if (Array.isArray(next.value)) {
      for (let i = next.value.length - 1; i >= 0; i--) stack.push({ value: next.value[i], loc: [...next.loc, i] })
    } else if (next.value !== null && typeof next.value === "object") {
      const entries = Object.entries(next.value)
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!
        const issue = textIssue(key, [...next.loc, key], "a key")
        if (issue !== undefined) issues.push(issue)
        stack.push({ value: child, loc: [...next.loc, key] })
      }
    }
  }
  return issues
}

/** NULs in the query string's names and values. */
export const queryNulIssues = (searchParams: URLSearchParams): Array<ValidationIssue> => {
  const issues: Array<ValidationIssue> = []
  for (const [key, value] of searchParams) {
    if (key.includes(NUL) || value.includes(NUL)) issues.push(nulIssue(["query", key], value, "a query parameter"))
  }
  return issues
}

/** A NUL in the decoded path (a path parameter such as a trigger path is looked up in the database). */
export const pathNulIssues = (pathname: string): Array<ValidationIssue> => {
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    return []
  }
  return decoded.includes(NUL) ? [nulIssue(["path"], decoded, "the path")] : []
}

const isMultipart = (contentType: string | undefined) =>
  (contentType ?? "").split(";")[0]!.trim().toLowerCase() === "multipart/form-data"

const isForm = (contentType: string | undefined) =>
  (contentType ?? "").split(";")[0]!.trim().toLowerCase() === "application/x-www-form-urlencoded"

/**
 * What is wrong with a buffered body before any handler reads it: too deep, or NULs or lone surrogates anywhere. JSON that
 * does not parse is left to the endpoint's own decoding (which says "JSON decode error"), unless it
 * carries a raw NUL. Form bodies (provider callbacks) are checked name by name. Multipart bodies (an
 * audio file to transcribe) are binary: their one text field is checked by the endpoint's schema.
 */
export const bodyIssues = (text: string, contentType: string | undefined): Array<ValidationIssue> => {
  if (isMultipart(contentType)) return []
  if (isForm(contentType)) {
    const issues: Array<ValidationIssue> = []
    for (const [key, value] of new URLSearchParams(text)) {
      if (key.includes(NUL) || value.includes(NUL)) issues.push(nulIssue(["body", key], value, "a form field"))
    }
    return issues
  }
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) return [tooDeepIssue(MAX_JSON_DEPTH)]
  // A NUL reaches a parsed string only through the escape `\u0000` (JSON forbids it raw in strings), a
  // lone surrogate only through a `\ud800`–`\udfff` escape (the body was decoded from UTF-8).
  const mayHoldNul = text.includes(NUL) || /\\u0000/i.test(text)
  const mayHoldSurrogate = /\\u[dD][89a-fA-F]/.test(text)
  if (!mayHoldNul && !mayHoldSurrogate) return []
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return text.includes(NUL) ? [nulIssue(["body"], null, "the body")] : []
  }
  return stringIssues(parsed, ["body"])
}

/**
 * Whether a buffered multipart body is complete: its content type names a boundary and the body holds
 * the closing delimiter (`--boundary--`). The platform's parser waits for more of a body cut short, and
 * a buffered body will never get more, so such a body is refused before it reaches the parser.
 */
export const multipartComplete = (bytes: Uint8Array, contentType: string | undefined): boolean => {
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? "")
  const value = boundary?.[1] ?? boundary?.[2]
  if (value === undefined) return false
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(`--${value}--`)
}
