/**
 * What a model is given after a tool call, and what the run records of it (pure).
 *
 * The model always gets a JSON object as text: `{"status": 200, "data": ...}` when the tool answered,
 * `{"error": "...", ...}` when it did not or refused, worded so the agent can say what happened (a slow
 * or failing tool is a sentence to speak, never a failed call). At most `TOOL_RESULT_MAX_CHARS`
 * characters: a longer answer's `data` becomes its first characters as text, with `truncated` saying so.
 */
import { TOOL_RESULT_MAX_CHARS, type ToolCategory } from "@agentline/api/tools/Tools"

/** Why a call did not succeed. */
export type ToolCallErrorKind =
  /** The model's arguments do not fit the parameters (no request was made). */
  | "invalid_arguments"
  /** A required preset parameter has no value in this call (no request was made). */
  | "preset_missing"
  /** The operator's rule refuses the target (a private address). */
  | "refused_target"
  /** The tool's credential was deleted. */
  | "credential_missing"
  | "timeout"
  /** No answer: connection refused, reset, DNS, TLS, a redirect. */
  | "network"
  /** The HTTP tool answered with a status other than 2xx. */
  | "http_status"
  /** The MCP server answered the call with an error result, or the MCP exchange failed. */
  | "tool_error"
  /** A fault of this server; logged. */
  | "internal"

/** One tool call, as the run's timeline and usage record it. Secrets (credential headers) are never in it. */
export interface ToolCallRecord {
  readonly tool_uuid: string
  readonly tool_name: string
  /** The name the model called it by. */
  readonly function_name: string
  readonly category: ToolCategory
  /** The MCP server's tool that was called. */
  readonly mcp_tool_name: string | null
  /** The arguments as the model sent them. */
  readonly arguments: unknown
  readonly started_at: string
  /** From the request's start to its answer (0 when no request was made). */
  readonly latency_ms: number
  readonly status: "success" | "error"
  readonly status_code: number | null
  /** Bytes of the answer read. */
  readonly response_bytes: number
  /** Characters the model was given. */
  readonly result_chars: number
  readonly result_truncated: boolean
  readonly error: string | null
  readonly error_kind: ToolCallErrorKind | null
}

export interface ModelResult {
  readonly text: string
  readonly truncated: boolean
}

/** The envelope as text within the limit: `data` is cut (as text) when the whole would be longer. */
export const resultText = (envelope: Readonly<Record<string, unknown>>, limit = TOOL_RESULT_MAX_CHARS): ModelResult => {
  const whole = JSON.stringify(envelope)
  if (whole.length <= limit) return { text: whole, truncated: false }
  const data = envelope.data
  const dataText = typeof data === "string" ? data : JSON.stringify(data) ?? ""
  const rest = Object.fromEntries(Object.entries(envelope).filter(([key]) => key !== "data"))
  const note = `the answer was ${dataText.length} characters; only the first ones are here`
  const cut = (length: number) => JSON.stringify({ ...rest, truncated: note, data: dataText.slice(0, length) })
  if (cut(0).length > limit) return { text: JSON.stringify({ truncated: "the answer was too long to show" }).slice(0, limit), truncated: true }
  // The longest start of the text that fits once escaped (escapes make JSON longer than its text).
  let fits = 0
  let over = dataText.length
  while (over - fits > 1) {
    const middle = Math.floor((fits + over) / 2)
    if (cut(middle).length <= limit) fits = middle
    else over = middle
  }
  return { text: cut(fits), truncated: true }
}

/** An answer's body as a value: JSON when it is JSON, else its text; none when empty. */
export const bodyValue = (text: string, contentType: string | null): unknown => {
  const trimmed = text.trim()
  if (trimmed === "") return null
  if ((contentType ?? "").includes("json") || trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(trimmed)
    } catch {
      return text
    }
  }
  return text
}

export const successResult = (statusCode: number | null, data: unknown): ModelResult =>
  resultText(statusCode === null ? { data } : { status: statusCode, data })

export const errorResult = (error: string, statusCode: number | null = null, data: unknown = undefined): ModelResult =>
  resultText({
    error,
    ...(statusCode !== null ? { status: statusCode } : {}),
    ...(data !== undefined && data !== null ? { data } : {})
  })

/** What a run's tool calls add up to, for its usage. */
export interface ToolUsage {
  readonly calls: number
  readonly failed: number
  readonly latency_ms: number
  readonly response_bytes: number
}

export const toolUsage = (records: ReadonlyArray<ToolCallRecord>): ToolUsage => ({
  calls: records.length,
  failed: records.filter((r) => r.status === "error").length,
  latency_ms: records.reduce((sum, r) => sum + r.latency_ms, 0),
  response_bytes: records.reduce((sum, r) => sum + r.response_bytes, 0)
})
