/**
 * What the campaign pages compute from the API's answers: which actions a state allows, the settings
 * form (bounds and defaults as the API documents them) and its request, the live view's figures (the
 * breaker's state from the log, the calling window's next opening from the schedule), and the row
 * problems of a refused contacts file. Pure, so each is tested without a browser.
 */
import { DateTime, Option } from "effect"

export type CampaignState = "draft" | "running" | "paused" | "completed" | "failed" | "canceled"

export type CampaignAction = "start" | "pause" | "resume" | "cancel" | "redial"

/** The server's transition table (`CampaignState.ts` in core), for enabling buttons; the server decides. */
const ALLOWED: { readonly [A in CampaignAction]: ReadonlyArray<CampaignState> } = {
  start: ["draft"],
  pause: ["running"],
  resume: ["paused"],
  cancel: ["draft", "running", "paused"],
  redial: ["completed"]
}

export const ACTION_LABELS: { readonly [A in CampaignAction]: string } = {
  start: "Start",
  pause: "Pause",
  resume: "Resume",
  cancel: "Cancel campaign",
  redial: "Redial…"
}

/**
 * The actions offered for a campaign. A paused campaign is continued with Resume (Start from paused is
 * the same move; one button is clearer). Redial is offered once, on a completed campaign.
 */
export const availableActions = (state: CampaignState, redialedAs: number | null): ReadonlyArray<CampaignAction> =>
  (Object.keys(ALLOWED) as Array<CampaignAction>).filter((action) =>
    ALLOWED[action].includes(state) && (action !== "redial" || redialedAs === null)
  )

export const isFinished = (state: CampaignState): boolean => state === "completed" || state === "failed" || state === "canceled"

/** Settings can be changed only while draft or paused (the server's rule). */
export const isEditable = (state: CampaignState): boolean => state === "draft" || state === "paused"

// ------------------------------------------------------------------------------------------ settings

export interface NumberSetting {
  readonly name: string
  readonly label: string
  readonly min: number
  readonly max: number
  readonly step: number
  readonly default: number
  readonly help?: string
}

/** Bounds and defaults of `CampaignSettings.ts` in `@agentline/api` (docs/campaigns.md). */
export const RETRY_NUMBERS: ReadonlyArray<NumberSetting> = [
  { name: "max_retries", label: "Retries per contact", min: 0, max: 10, step: 1, default: 2, help: "At most this many more calls after the first" },
  { name: "retry_delay_seconds", label: "Delay before a retry (seconds)", min: 1, max: 86_400, step: 1, default: 120 }
]
export const RETRY_FLAGS = [
  { name: "enabled", label: "Retry unreached contacts", default: true },
  { name: "retry_on_busy", label: "Retry when busy", default: true },
  { name: "retry_on_no_answer", label: "Retry when not answered", default: true },
  { name: "retry_on_voicemail", label: "Retry on voicemail", default: true }
] as const

export const BREAKER_NUMBERS: ReadonlyArray<NumberSetting> = [
  {
    name: "failure_threshold",
    label: "Failure rate that pauses the campaign",
    min: 0.01,
    max: 1,
    step: 0.01,
    default: 0.5,
    help: "A share from 0 (exclusive) to 1"
  },
  { name: "window_seconds", label: "Window (seconds)", min: 10, max: 3600, step: 1, default: 120 },
  { name: "min_calls_in_window", label: "Calls needed before judging", min: 1, max: 1000, step: 1, default: 5 }
]

/** No default of its own: left empty, the campaign is held only by the organization's limit. */
export const CONCURRENCY: Omit<NumberSetting, "default"> = {
  name: "max_concurrency",
  label: "Calls at once",
  min: 1,
  max: 100,
  step: 1,
  help: "Empty: only the organization's limit applies (it applies across campaigns anyway)"
}

export const DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const

export interface SlotInput {
  readonly day_of_week: number
  readonly start_time: string
  readonly end_time: string
}

export interface SettingsForm {
  readonly retry: Record<string, string | boolean>
  readonly breaker: Record<string, string | boolean>
  readonly maxConcurrency: string
  readonly scheduleEnabled: boolean
  readonly timezone: string
  readonly slots: ReadonlyArray<SlotInput>
}

interface CampaignSettingsLike {
  readonly retry_config?: Readonly<Record<string, unknown>>
  readonly circuit_breaker?: Readonly<Record<string, unknown>> | null
  readonly max_concurrency?: number | null
  readonly schedule_config?: {
    readonly enabled?: boolean
    readonly timezone?: string
    readonly slots?: ReadonlyArray<SlotInput>
  } | null
}

const numberText = (value: unknown, fallback: number) => String(typeof value === "number" ? value : fallback)
const flag = (value: unknown, fallback: boolean) => (typeof value === "boolean" ? value : fallback)

/** The form for a new campaign (defaults) or an existing one (its effective settings). */
export const settingsForm = (campaign?: CampaignSettingsLike): SettingsForm => {
  const retry: Record<string, string | boolean> = {}
  for (const f of RETRY_FLAGS) retry[f.name] = flag(campaign?.retry_config?.[f.name], f.default)
  for (const n of RETRY_NUMBERS) retry[n.name] = numberText(campaign?.retry_config?.[n.name], n.default)
  const breaker: Record<string, string | boolean> = { enabled: flag(campaign?.circuit_breaker?.enabled, true) }
  for (const n of BREAKER_NUMBERS) breaker[n.name] = numberText(campaign?.circuit_breaker?.[n.name], n.default)
  const schedule = campaign?.schedule_config ?? null
  return {
    retry,
    breaker,
    maxConcurrency: typeof campaign?.max_concurrency === "number" ? String(campaign.max_concurrency) : "",
    scheduleEnabled: schedule !== null && schedule.enabled !== false,
    timezone: schedule?.timezone ?? browserTimeZone(),
    slots: schedule?.slots ?? []
  }
}

const browserTimeZone = (): string => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC"
  } catch {
    return "UTC"
  }
}

const numbersOf = (
  values: Readonly<Record<string, string | boolean>>,
  specs: ReadonlyArray<NumberSetting>,
  prefix: string,
  errors: Record<string, string>
): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const spec of specs) {
    const text = String(values[spec.name] ?? "").trim()
    const value = Number(text)
    if (text === "" || !Number.isFinite(value)) errors[`${prefix}.${spec.name}`] = `${spec.label} must be a number`
    else out[spec.name] = value
  }
  return out
}

export interface RetryRequest {
  readonly enabled: boolean
  readonly max_retries: number
  readonly retry_delay_seconds: number
  readonly retry_on_busy: boolean
  readonly retry_on_no_answer: boolean
  readonly retry_on_voicemail: boolean
}

export interface BreakerRequest {
  readonly enabled: boolean
  readonly failure_threshold: number
  readonly window_seconds: number
  readonly min_calls_in_window: number
}

export interface SettingsRequest {
  readonly retry_config: RetryRequest
  readonly circuit_breaker: BreakerRequest
  readonly max_concurrency: number | null
  readonly schedule_config: { readonly enabled: boolean; readonly timezone: string; readonly slots: ReadonlyArray<SlotInput> } | null
}

/**
 * The settings part of a create or update request, or the fields that are not numbers yet (by
 * `retry_config.max_retries`-style path, as the API's 422 names them). Bounds are left to the server,
 * which answers with every field at fault.
 */
export const settingsRequest = (form: SettingsForm): { readonly request: SettingsRequest } | { readonly errors: Record<string, string> } => {
  const errors: Record<string, string> = {}
  const retry = numbersOf(form.retry, RETRY_NUMBERS, "retry_config", errors)
  const breaker = numbersOf(form.breaker, BREAKER_NUMBERS, "circuit_breaker", errors)
  const concurrencyText = form.maxConcurrency.trim()
  const concurrency = concurrencyText === "" ? null : Number(concurrencyText)
  if (concurrency !== null && !Number.isFinite(concurrency)) errors.max_concurrency = `${CONCURRENCY.label} must be a number`
  if (form.scheduleEnabled && form.slots.length === 0) errors["schedule_config.slots"] = "Add at least one calling window, or turn the schedule off"
  if (Object.keys(errors).length > 0) return { errors }
  return {
    request: {
      retry_config: {
        enabled: form.retry.enabled === true,
        max_retries: retry.max_retries!,
        retry_delay_seconds: retry.retry_delay_seconds!,
        retry_on_busy: form.retry.retry_on_busy === true,
        retry_on_no_answer: form.retry.retry_on_no_answer === true,
        retry_on_voicemail: form.retry.retry_on_voicemail === true
      },
      circuit_breaker: {
        enabled: form.breaker.enabled === true,
        failure_threshold: breaker.failure_threshold!,
        window_seconds: breaker.window_seconds!,
        min_calls_in_window: breaker.min_calls_in_window!
      },
      max_concurrency: concurrency,
      schedule_config: form.scheduleEnabled ? { enabled: true, timezone: form.timezone.trim(), slots: form.slots } : null
    }
  }
}

// ------------------------------------------------------------------------------------------ live view

export interface LogEntryLike {
  readonly ts: string
  readonly level: string
  readonly event: string
  readonly message: string
  readonly details: Readonly<Record<string, unknown>>
}

export type BreakerState =
  | { readonly state: "disabled" }
  /** Watching: calls flow; it trips past `threshold` failures among at least `minCalls` calls in `windowSeconds`. */
  | { readonly state: "closed"; readonly threshold: number; readonly windowSeconds: number; readonly minCalls: number }
  /** It paused the campaign (`at`, `message` from the log) and the campaign has not been resumed since. */
  | { readonly state: "tripped"; readonly at: string; readonly message: string }

/** The breaker's state as the API shows it: its settings, and the log's last trip unless a resume or start followed. */
export const breakerState = (campaign: {
  readonly state: string
  readonly circuit_breaker?: Readonly<Record<string, unknown>> | null
  readonly logs: ReadonlyArray<LogEntryLike>
}): BreakerState => {
  const config = campaign.circuit_breaker
  if (config === null || config === undefined || config.enabled === false) return { state: "disabled" }
  for (let i = campaign.logs.length - 1; i >= 0; i--) {
    const entry = campaign.logs[i]!
    if (entry.event === "campaign_resumed" || entry.event === "campaign_started") break
    if (entry.event === "circuit_breaker_tripped" && campaign.state === "paused") {
      return { state: "tripped", at: entry.ts, message: entry.message }
    }
  }
  return {
    state: "closed",
    threshold: typeof config.failure_threshold === "number" ? config.failure_threshold : 0.5,
    windowSeconds: typeof config.window_seconds === "number" ? config.window_seconds : 120,
    minCalls: typeof config.min_calls_in_window === "number" ? config.min_calls_in_window : 5
  }
}

/**
 * The calling window's next opening after `now`: `now` itself when inside a window (or without an
 * enabled schedule), null when the zone is unknown or there are no slots. Wall-clock times in the
 * schedule's zone; across a daylight-saving change the hour that does not exist is resolved as Effect's
 * DateTime does (the server's own rule is in core's `CallingWindow.ts`; this is for display).
 */
export const nextOpening = (
  schedule: { readonly enabled?: boolean; readonly timezone?: string; readonly slots: ReadonlyArray<SlotInput> } | null | undefined,
  now: Date
): Date | null => {
  if (schedule === null || schedule === undefined || schedule.enabled === false) return now
  if (schedule.slots.length === 0) return null
  // The API's default zone is UTC.
  const zone = DateTime.zoneMakeNamed(schedule.timezone ?? "UTC")
  if (Option.isNone(zone)) return null
  const local = DateTime.unsafeMakeZoned(now, { timeZone: zone.value })
  const parts = DateTime.toParts(local)
  // toParts' weekDay: 0 = Sunday; the schedule's day_of_week: 0 = Monday.
  const today = (parts.weekDay + 6) % 7
  const minuteNow = parts.hours * 60 + parts.minutes
  const minutes = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5))
  let best: number | null = null
  for (const slot of schedule.slots) {
    const start = minutes(slot.start_time)
    const end = minutes(slot.end_time)
    const dayOffset = (slot.day_of_week - today + 7) % 7
    const inside = start < end
      ? dayOffset === 0 && minuteNow >= start && minuteNow < end
      // Overnight: the evening on its day, the morning on the next.
      : (dayOffset === 0 && minuteNow >= start) || ((slot.day_of_week + 1) % 7 === today && minuteNow < end)
    if (inside) return now
    for (const offset of [dayOffset, dayOffset + 7]) {
      const candidate = DateTime.unsafeMakeZoned(
        { year: parts.year, month: parts.month, day: parts.day + offset, hours: Math.floor(start / 60), minutes: start % 60, seconds: 0, millis: 0 },
        { timeZone: zone.value, adjustForTimeZone: true }
      )
      const at = DateTime.toEpochMillis(candidate)
      if (at > now.getTime()) {
        if (best === null || at < best) best = at
        break
      }
    }
  }
  return best === null ? null : new Date(best)
}

export interface LiveFigures {
  readonly total: number | null
  readonly processed: number
  readonly reached: number
  readonly failed: number
  readonly skipped: number
  /** Share of contacts with a final outcome, 0–1; null while the import has not said how many there are. */
  readonly progress: number | null
  readonly attemptsPlaced: number
  /** Attempts queued and not placed yet: first tries still to dial and retries waiting for their time. */
  readonly attemptsWaiting: number
}

export const liveFigures = (campaign: {
  readonly total_rows: number | null
  readonly processed_rows: number
  readonly failed_rows: number
  readonly skipped_rows: number
  readonly executed_count: number
  readonly total_queued_count: number
}): LiveFigures => ({
  total: campaign.total_rows,
  processed: campaign.processed_rows,
  reached: Math.max(0, campaign.processed_rows - campaign.failed_rows - campaign.skipped_rows),
  failed: campaign.failed_rows,
  skipped: campaign.skipped_rows,
  progress: campaign.total_rows === null || campaign.total_rows === 0
    ? (campaign.total_rows === 0 ? 1 : null)
    : Math.min(1, campaign.processed_rows / campaign.total_rows),
  attemptsPlaced: campaign.executed_count,
  attemptsWaiting: Math.max(0, campaign.total_queued_count - campaign.executed_count)
})

// ------------------------------------------------------------------------------------------ contacts file

/**
 * A refused contacts file's message (one sentence per kind of problem: "Invalid phone numbers in rows:
 * 2, 5. Use E.164 …") as a list, one item per problem with the advice that follows it kept with it.
 */
export const rowProblems = (detail: string): ReadonlyArray<string> => {
  const sentences = detail.split(/(?<=\.)\s+(?=[A-Z])/).map((s) => s.trim()).filter((s) => s !== "")
  const out: Array<string> = []
  for (const sentence of sentences) {
    if (out.length > 0 && !/\brows?\b/i.test(sentence)) out[out.length - 1] = `${out[out.length - 1]} ${sentence}`
    else out.push(sentence)
  }
  return out
}

/** Why a file cannot be uploaded as contacts, or null (the server checks the content). */
export const fileProblem = (file: { readonly name: string; readonly size: number }): string | null => {
  if (!/\.csv$/i.test(file.name)) return "Choose a .csv file (contacts are uploaded as CSV)"
  if (file.size === 0) return "The file is empty"
  return null
}
