/**
 * The global runs page's form (`GET /runs`, docs/reports.md) as query parameters: the same ones for the
 * list and for the CSV export's link (in the list's order), empty fields left out. Dates are the browser's
 * local days.
 */
import { RunListParams } from "@agentline/api/runs/RunSearch"
import { type Effect, type ParseResult, Schema } from "effect"

export interface RunSearchForm {
  readonly q: string
  readonly workflow_id: string
  readonly campaign_id: string
  readonly status: string
  readonly outcome: string
  readonly disposition: string
  readonly call_type: string
  readonly phone_number: string
  /** `YYYY-MM-DD`, local days, inclusive. */
  readonly from: string
  readonly to: string
  /** One of `SORTS`' values; empty is the API's default, newest first. */
  readonly sort: string
}

export const emptySearch: RunSearchForm = {
  q: "",
  workflow_id: "",
  campaign_id: "",
  status: "",
  outcome: "",
  disposition: "",
  call_type: "",
  phone_number: "",
  from: "",
  to: "",
  sort: ""
}

/** The orders the list offers (`sort_by:sort_order`), the API's default first. */
export const SORTS = [
  ["", "Newest first"],
  ["created_at:asc", "Oldest first"],
  ["duration:desc", "Longest first"],
  ["duration:asc", "Shortest first"],
  ["cost:desc", "Most expensive first"],
  ["cost:asc", "Cheapest first"]
] as const

/** The outcomes `GET /runs` filters by (a run's `gathered_context.outcome`). */
export const OUTCOMES = ["completed", "busy", "no_answer", "voicemail", "failed", "canceled", "interrupted"] as const

/** The start of a local day as an instant; its last millisecond with `end`. */
export const localDayBound = (day: string, end: boolean): string | undefined => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined
  const date = new Date(`${day}T${end ? "23:59:59.999" : "00:00:00.000"}`)
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

/** The query parameters of the form (encoded, as in a URL), empty ones left out. */
export const searchParams = (form: RunSearchForm): Record<string, string> => {
  const params: Record<string, string> = {}
  const put = (key: string, value: string | undefined) => {
    const trimmed = value?.trim()
    if (trimmed !== undefined && trimmed !== "") params[key] = trimmed
  }
  put("q", form.q)
  put("workflow_id", form.workflow_id)
  put("campaign_id", form.campaign_id)
  put("status", form.status)
  put("outcome", form.outcome)
  put("disposition", form.disposition)
  put("call_type", form.call_type)
  put("phone_number", form.phone_number)
  put("start_date", localDayBound(form.from, false))
  put("end_date", localDayBound(form.to, true))
  const [sortBy, sortOrder] = form.sort.split(":")
  put("sort_by", sortBy)
  put("sort_order", sortOrder)
  return params
}

/** The export's address for the form's filters (a plain link: the session cookie goes with it). */
export const exportHref = (form: RunSearchForm): string => {
  const query = new URLSearchParams(searchParams(form)).toString()
  return `/api/v1/runs/export${query === "" ? "" : `?${query}`}`
}

/** The list's parameters, checked by the API's own schema (its messages name the field at fault). */
export const listParams = (form: RunSearchForm, cursor?: string): Effect.Effect<RunListParams, ParseResult.ParseError> =>
  Schema.decodeUnknown(RunListParams, { errors: "all" })({ ...searchParams(form), limit: "50", ...(cursor === undefined ? {} : { cursor }) })
