/** Pure helpers of the reports: local days as UTC instants, the reference's JSON filters. */
import type { RunFilterParams } from "@agentline/api/runs/RunSearch"
import { CampaignId, WorkflowId } from "@agentline/api/Ids"
import { Either } from "effect"
import { InvalidRunFilter } from "./Errors.js"
import type { RunFilter } from "./RunQuery.js"

/** How far `zone`'s wall clock is ahead of UTC at `instant`, in milliseconds. */
export const zoneOffset = (instant: number, zone: string): number => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit"
    }).formatToParts(new Date(instant)).map((p) => [p.type, p.value])
  )
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second))
  return wall - Math.floor(instant / 1000) * 1000
}

/** The UTC instant at which `zone`'s wall clock reads `wallMillis` (as if UTC); DST gaps resolve forward. */
const fromWall = (wallMillis: number, zone: string): number => {
  const first = wallMillis - zoneOffset(wallMillis, zone)
  return wallMillis - zoneOffset(first, zone)
}

/** The local day `date` (YYYY-MM-DD) of `zone` as inclusive UTC bounds (ISO, as runs store `created_at`). */
export const localDay = (date: string, zone: string): { readonly start: string; readonly end: string } => {
  const midnight = Date.parse(`${date}T00:00:00Z`)
  const start = fromWall(midnight, zone)
  const next = fromWall(midnight + 86_400_000, zone)
  return { start: new Date(start).toISOString(), end: new Date(next - 1).toISOString() }
}

/** The calendar month (UTC) holding `now`: its first instant and its last. */
export const monthOf = (now: number) => {
  const d = new Date(now)
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
  return { start: new Date(start).toISOString(), end: new Date(next - 1).toISOString() }
}

/** The `days` UTC days ending today, oldest first (`YYYY-MM-DD`). */
export const lastDays = (now: number, days: number): ReadonlyArray<string> => {
  const today = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate())
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10))
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}

/**
 * The reference's `filters` (a JSON array of `{attribute, type, value}`) as a run filter. Read:
 * `workflowId`, `campaignId` (`{value}`), `callerNumber`/`calledNumber` (`{value}`: the other party's
 * number, exactly), `dispositionCode` (`{codes}`), `duration` (`{min, max}`), `callDirection`
 * (`{status}`); other attributes are ignored, as in the reference. Not JSON, or not an array: refused.
 */
export const fromReferenceFilters = (filters: string | undefined): Either.Either<RunFilter, InvalidRunFilter> => {
  if (filters === undefined || filters.trim() === "") return Either.right({})
  let parsed: unknown
  try {
    parsed = JSON.parse(filters)
  } catch {
    return Either.left(new InvalidRunFilter())
  }
  if (!Array.isArray(parsed)) return Either.left(new InvalidRunFilter())
  const out: { -readonly [K in keyof RunFilterParams]?: RunFilterParams[K] } = {}
  for (const item of parsed) {
    const { attribute } = record(item)
    const value = record(record(item).value)
    const int = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v > 0 && v < 2_147_483_648 ? v : undefined)
    switch (attribute) {
      case "workflowId":
        if (int(value.value) !== undefined) out.workflow_id = WorkflowId.make(int(value.value)!)
        break
      case "campaignId":
        if (int(value.value) !== undefined) out.campaign_id = CampaignId.make(int(value.value)!)
        break
      case "callerNumber":
      case "calledNumber":
        if (typeof value.value === "string" && value.value !== "") out.phone_number = value.value
        break
      case "dispositionCode":
        if (Array.isArray(value.codes)) out.disposition = value.codes.filter((c): c is string => typeof c === "string")
        break
      case "duration":
        if (typeof value.min === "number") out.min_duration = value.min
        if (typeof value.max === "number") out.max_duration = value.max
        break
      case "callDirection":
        if (value.status === "inbound" || value.status === "outbound") out.call_type = value.status
        break
    }
  }
  return Either.right(out)
}
