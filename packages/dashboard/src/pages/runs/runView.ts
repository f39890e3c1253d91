/**
 * What the run pages read out of a run as the API returns it: the transcript as turns of a
 * conversation (`logs.transcript`), the call's timeline (the provider's status callbacks in
 * `logs.telephony_status_callbacks` and the agent's node transitions, tool calls and transfers in `logs.realtime_feedback_events`, a transfer's result in `logs.transfer`),
 * the outcome and disposition (`gathered_context`), the recordings' links, usage and cost flattened for
 * a table, and the runs table's filters. Pure, tested without a browser.
 */

type JsonObject = Readonly<Record<string, unknown>>

export interface RunLike {
  readonly id: number
  readonly name: string
  readonly created_at: string
  readonly is_completed: boolean
  readonly call_type: string
  readonly logs: JsonObject | null
  readonly gathered_context: JsonObject | null
  readonly initial_context?: JsonObject | null
  readonly usage_info?: JsonObject | null
  readonly cost_info?: JsonObject | null
  readonly recording_public_url?: string | null
  readonly user_recording_public_url?: string | null
  readonly bot_recording_public_url?: string | null
  readonly recording_url?: string | null
  readonly user_recording_url?: string | null
  readonly bot_recording_url?: string | null
  readonly transcript_public_url?: string | null
  readonly transcript_url?: string | null
}

const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)
const list = (u: unknown): ReadonlyArray<unknown> => (Array.isArray(u) ? u : [])

// ------------------------------------------------------------------------------------------ transcript

export interface Turn {
  readonly speaker: "agent" | "caller"
  readonly text: string
  /** Milliseconds from the call's start, when known. */
  readonly startMs: number | null
  readonly interrupted: boolean
}

/** The conversation, in order; roles other than the agent's (`assistant`, `bot`) are the caller's. */
export const transcriptTurns = (run: Pick<RunLike, "logs">): ReadonlyArray<Turn> =>
  list(run.logs?.transcript)
    .filter(isObject)
    .filter((t) => typeof t.text === "string" && t.text.trim() !== "")
    .map((t) => ({
      speaker: t.role === "assistant" || t.role === "bot" || t.role === "agent" ? "agent" as const : "caller" as const,
      text: String(t.text),
      startMs: typeof t.start_ms === "number" ? t.start_ms : null,
      interrupted: t.interrupted === true
    }))
    .sort((a, b) => (a.startMs ?? 0) - (b.startMs ?? 0))

/** `m:ss` of a number of milliseconds, for the transcript's time marks. */
export const clock = (ms: number): string => {
  const seconds = Math.max(0, Math.floor(ms / 1000))
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`
}

// ------------------------------------------------------------------------------------------ timeline

export interface TimelineEntry {
  readonly at: string
  readonly kind: "status" | "node" | "function" | "tool" | "transfer" | "error"
  readonly title: string
  readonly detail: string | null
}

const statusEntry = (event: JsonObject): TimelineEntry | null => {
  if (typeof event.status !== "string" || typeof event.timestamp !== "string") return null
  const notes = [
    typeof event.duration === "number" ? `${event.duration} s` : null,
    typeof event.answered_by === "string" ? `answered by ${event.answered_by}` : null,
    typeof event.error === "string" ? event.error : null,
    event.ignored === true ? "arrived after the call's end: recorded, not applied" : null
  ].filter((n): n is string => n !== null)
  return { at: event.timestamp, kind: "status", title: `Call ${event.status.replace(/_/g, " ")}`, detail: notes.length > 0 ? notes.join("; ") : null }
}

const feedbackEntry = (event: JsonObject): TimelineEntry | null => {
  const payload = isObject(event.payload) ? event.payload : {}
  const at = typeof event.timestamp === "string" ? event.timestamp : null
  if (at === null) return null
  switch (event.type) {
    case "rtf-node-transition":
      return {
        at,
        kind: "node",
        title: `Entered ${String(payload.node_name ?? payload.node_id ?? "a node")}`,
        detail: typeof payload.previous_node_name === "string" ? `from ${payload.previous_node_name}` : null
      }
    case "rtf-function-call-start":
      return { at, kind: "function", title: `Called ${String(payload.function_name ?? "a function")}`, detail: null }
    case "rtf-function-call-end":
      return {
        at,
        kind: "function",
        title: `${String(payload.function_name ?? "A function")} returned`,
        detail: typeof payload.result === "string" ? payload.result : null
      }
    case "rtf-tool-call": {
      const notes = [
        payload.status === "error" ? "failed" : "answered",
        typeof payload.status_code === "number" ? `HTTP ${payload.status_code}` : null,
        typeof payload.latency_ms === "number" ? `${payload.latency_ms} ms` : null,
        typeof payload.error === "string" ? payload.error : null
      ].filter((n): n is string => n !== null)
      return { at, kind: "tool", title: `Tool ${String(payload.tool_name ?? payload.function_name ?? "call")}`, detail: notes.join("; ") }
    }
    case "rtf-transfer":
      return {
        at,
        kind: "transfer",
        title: `Transfer to ${String(payload.target ?? "a person")}`,
        detail: [typeof payload.mode === "string" ? payload.mode : null, typeof payload.node_name === "string" ? `from ${payload.node_name}` : null]
          .filter((n): n is string => n !== null).join(", ") || null
      }
    case "rtf-pipeline-error":
      return {
        at,
        kind: "error",
        title: payload.fatal === true ? "Fatal error" : "Error",
        detail: typeof payload.error === "string" ? payload.error : null
      }
    default:
      return null
  }
}

/** A transfer's result, as its provider reported it (`logs.transfer`), once it has one. */
const transferResultEntry = (transfer: unknown): TimelineEntry | null => {
  if (!isObject(transfer) || typeof transfer.ended_at !== "string" || typeof transfer.status !== "string") return null
  return {
    at: transfer.ended_at,
    kind: "transfer",
    title: `Transfer ${transfer.status.replace(/_/g, " ")}`,
    detail: typeof transfer.cause === "string" ? transfer.cause : null
  }
}

/** Status callbacks, node transitions, tool calls and transfers in time order (ties keep callbacks first: they frame the call). */
export const timeline = (run: Pick<RunLike, "logs">): ReadonlyArray<TimelineEntry> => {
  const entries = [
    ...list(run.logs?.telephony_status_callbacks).filter(isObject).map(statusEntry),
    ...list(run.logs?.realtime_feedback_events).filter(isObject).map(feedbackEntry),
    transferResultEntry(run.logs?.transfer)
  ].filter((e): e is TimelineEntry => e !== null)
  return entries
    .map((entry, index) => ({ entry, index, time: Date.parse(entry.at) }))
    .sort((a, b) => (Number.isNaN(a.time) || Number.isNaN(b.time) ? 0 : a.time - b.time) || a.index - b.index)
    .map(({ entry }) => entry)
}

// ------------------------------------------------------------------------------------------ outcome

/**
 * How the call ended: the dispatcher's `gathered_context.outcome` (completed, busy, no_answer, voicemail,
 * failed, canceled, interrupted), else the last status callback's status, else "in progress"/"unknown".
 */
export const runOutcome = (run: Pick<RunLike, "gathered_context" | "logs" | "is_completed">): string => {
  const outcome = run.gathered_context?.outcome
  if (typeof outcome === "string" && outcome !== "") return outcome
  const callbacks = list(run.logs?.telephony_status_callbacks).filter(isObject)
  const last = callbacks.filter((c) => c.ignored !== true).at(-1)
  if (!run.is_completed) return "in progress"
  return typeof last?.status === "string" ? last.status : "unknown"
}

/** The runs the runs table shows as "in progress" (the campaign's live view lists the same ones). */
export const inProgressRuns = <R extends Pick<RunLike, "gathered_context" | "logs" | "is_completed">>(runs: ReadonlyArray<R>): ReadonlyArray<R> =>
  runs.filter((run) => runOutcome(run) === "in progress")

/** The disposition the conversation (or, failing that, the call's outcome) gave the run, if any. */
export const runDisposition = (run: Pick<RunLike, "gathered_context">): string | null => {
  const context = run.gathered_context
  for (const key of ["mapped_call_disposition", "call_disposition"]) {
    const value = context?.[key]
    if (typeof value === "string" && value !== "") return value
  }
  return null
}

export interface RunFilters {
  readonly outcome: string
  readonly disposition: string
  /** `YYYY-MM-DD`, inclusive, in the browser's zone; "" for no bound. */
  readonly from: string
  readonly to: string
}

export const noFilters: RunFilters = { outcome: "", disposition: "", from: "", to: "" }

const localDay = (iso: string): string => {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return ""
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`
}

export const filterRuns = <R extends RunLike>(runs: ReadonlyArray<R>, filters: RunFilters): ReadonlyArray<R> =>
  runs.filter((run) => {
    if (filters.outcome !== "" && runOutcome(run) !== filters.outcome) return false
    if (filters.disposition !== "" && runDisposition(run) !== filters.disposition) return false
    const day = localDay(run.created_at)
    if (filters.from !== "" && day < filters.from) return false
    if (filters.to !== "" && day > filters.to) return false
    return true
  })

/** The values the filters can take among `runs`, sorted, for their select boxes. */
export const filterChoices = (runs: ReadonlyArray<RunLike>): { readonly outcomes: ReadonlyArray<string>; readonly dispositions: ReadonlyArray<string> } => ({
  outcomes: [...new Set(runs.map(runOutcome))].sort(),
  dispositions: [...new Set(runs.map(runDisposition).filter((d): d is string => d !== null))].sort()
})

// ------------------------------------------------------------------------------------------ artifacts

export interface Recording {
  readonly label: string
  readonly url: string
}

const DOWNLOADS = "/api/v1/public/download/"

/**
 * A signed download link of this server as a path on the page's own origin. The server signs its links
 * with its public address (`AGENTLINE_PUBLIC_URL`: what the telephony providers reach), which need not be
 * the address this page was opened at (`http://127.0.0.1:8000` while it says `localhost`, a LAN name, a
 * tunnel): from another origin a player is blocked by the page's `media-src 'self'`, and `download`
 * links are ignored. The dashboard is served by the server it talks to (its API calls are relative
 * too), so the path reaches the same file. Other links stay as they are.
 */
export const onThisOrigin = (url: string): string => {
  try {
    const parsed = new URL(url)
    return parsed.pathname.startsWith(DOWNLOADS) ? `${parsed.pathname}${parsed.search}` : url
  } catch {
    return url
  }
}

/** The run's recordings a browser can play: the signed public links (the API's `*_url` are the same links). */
export const recordings = (run: RunLike): ReadonlyArray<Recording> => {
  const candidates: ReadonlyArray<readonly [string, string | null | undefined]> = [
    ["Call recording", run.recording_public_url ?? run.recording_url],
    ["Caller's side", run.user_recording_public_url ?? run.user_recording_url],
    ["Agent's side", run.bot_recording_public_url ?? run.bot_recording_url]
  ]
  return candidates.flatMap(([label, url]) => (typeof url === "string" && url !== "" ? [{ label, url: onThisOrigin(url) }] : []))
}

export const transcriptLink = (run: RunLike): string | null => {
  const url = run.transcript_public_url ?? run.transcript_url ?? null
  return url === null ? null : onThisOrigin(url)
}

// ------------------------------------------------------------------------------------------ key/value tables

/**
 * A nested object as rows of `path → value` (`llm.gpt-4o.total_tokens → 120`), for usage, cost and
 * gathered context. Arrays of scalars are joined; empty objects give no rows.
 */
export const flatten = (value: unknown, prefix = ""): ReadonlyArray<{ readonly key: string; readonly value: string }> => {
  if (isObject(value)) {
    return Object.entries(value).flatMap(([key, inner]) => flatten(inner, prefix === "" ? key : `${prefix}.${key}`))
  }
  if (Array.isArray(value)) {
    return value.every((v) => !isObject(v) && !Array.isArray(v))
      ? [{ key: prefix, value: value.map(String).join(", ") }]
      : value.flatMap((v, i) => flatten(v, `${prefix}.${i}`))
  }
  if (value === null || value === undefined) return [{ key: prefix, value: "—" }]
  return [{ key: prefix, value: String(value) }]
}

// ------------------------------------------------------------------------------------------ run page sections

/** What the dialer and the voice runtime record about the call itself in `gathered_context`. */
const CALL_KEYS = [
  "outcome",
  "call_disposition",
  "mapped_call_disposition",
  "call_tags",
  "end_reason",
  "provider",
  "call_id",
  "hangup_cause",
  "error",
  "retry_scheduled_at"
] as const

/**
 * `gathered_context` split for the run page: what the conversation gathered (the agent's variables:
 * city, email…) apart from what was recorded about the call (provider, call id, end reason, tags). The
 * outcome and the disposition, shown at the top of the page, are not repeated; a mapped disposition
 * equal to the disposition neither.
 */
export const gatheredSections = (run: Pick<RunLike, "gathered_context">): { readonly gathered: JsonObject; readonly call: JsonObject } => {
  const context = run.gathered_context ?? {}
  const gathered: Record<string, unknown> = {}
  const call: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(context)) {
    if (!(CALL_KEYS as ReadonlyArray<string>).includes(key)) gathered[key] = value
    else if (key === "outcome" || key === "call_disposition") continue
    else if (key === "mapped_call_disposition" && value === context.call_disposition) continue
    else call[key] = value
  }
  return { gathered, call }
}

export interface UsageRow {
  readonly label: string
  readonly value: string
}

const number = (u: unknown): number | null => (typeof u === "number" && Number.isFinite(u) ? u : null)
const seconds = (s: number) => `${Math.round(s * 100) / 100} s`
const dollars = (d: number) => `$${d.toFixed(d !== 0 && Math.abs(d) < 0.01 ? 6 : 4)}`

/**
 * `usage_info` and `cost_info` as one list with units: the call's duration once (the dialer writes it
 * into both, the cost's rounded), the conversation's length, tokens per language model, characters
 * per voice, seconds of audio per recognizer, then the costs in US dollars and what had no price.
 * Keys the dashboard does not know are listed as they are, so nothing recorded is hidden.
 */
export const usageRows = (run: Pick<RunLike, "usage_info" | "cost_info">): ReadonlyArray<UsageRow> => {
  const usage = run.usage_info ?? {}
  const cost = run.cost_info ?? {}
  const rows: Array<UsageRow> = []
  const duration = number(usage.call_duration_seconds) ?? number(cost.call_duration_seconds)
  if (duration !== null) rows.push({ label: "Call duration", value: seconds(duration) })
  const conversation = number(usage.conversation_duration_seconds)
  if (conversation !== null) rows.push({ label: "Conversation", value: seconds(conversation) })
  const known = new Set(["call_duration_seconds", "conversation_duration_seconds", "llm", "tts", "stt"])
  for (const [model, tokens] of Object.entries(isObject(usage.llm) ? usage.llm : {})) {
    const t = isObject(tokens) ? tokens : {}
    const parts = [["prompt", t.prompt_tokens], ["completion", t.completion_tokens], ["total", t.total_tokens]] as const
    const text = parts.flatMap(([name, n]) => (number(n) === null ? [] : [`${name} ${number(n)!.toLocaleString("en-US")}`])).join(", ")
    rows.push({ label: `Language model ${model}`, value: `${text === "" ? "—" : text} tokens` })
  }
  for (const [voice, characters] of Object.entries(isObject(usage.tts) ? usage.tts : {})) {
    rows.push({ label: `Text to speech ${voice}`, value: number(characters) === null ? String(characters) : `${number(characters)!.toLocaleString("en-US")} characters` })
  }
  for (const [recognizer, audio] of Object.entries(isObject(usage.stt) ? usage.stt : {})) {
    rows.push({ label: `Speech to text ${recognizer}`, value: number(audio) === null ? String(audio) : `${seconds(number(audio)!)} of audio` })
  }
  for (const row of flatten(Object.fromEntries(Object.entries(usage).filter(([key]) => !known.has(key))))) rows.push({ label: row.key, value: row.value })
  const costs: ReadonlyArray<readonly [string, string]> = [
    ["total_cost_usd", "Total cost"],
    ["llm_cost_usd", "Language model cost"],
    ["stt_cost_usd", "Speech to text cost"],
    ["tts_cost_usd", "Text to speech cost"]
  ]
  for (const [key, label] of costs) {
    const value = number(cost[key])
    if (value !== null) rows.push({ label, value: dollars(value) })
  }
  if (Array.isArray(cost.unpriced) && cost.unpriced.length > 0) rows.push({ label: "Without a price", value: cost.unpriced.map(String).join(", ") })
  const costKnown = new Set(["call_duration_seconds", "unpriced", ...costs.map(([key]) => key)])
  for (const row of flatten(Object.fromEntries(Object.entries(cost).filter(([key]) => !costKnown.has(key))))) rows.push({ label: row.key, value: row.value })
  return rows
}

/** The agent's version a run ran, from the agent's versions (a run records its definition's id). */
export const runVersion = (
  definitionId: number | null,
  versions: ReadonlyArray<{ readonly id: number; readonly version_number: number }> | undefined
): string | null => {
  if (definitionId === null) return null
  const version = versions?.find((v) => v.id === definitionId)
  return version === undefined ? null : `version ${version.version_number}`
}
