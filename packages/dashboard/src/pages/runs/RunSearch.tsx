/**
 * Runs of the whole organization (`GET /runs`): filtered and searched on the server (every word of the
 * search box in the transcript or the gathered context), newest first or in the order chosen (by date,
 * duration or cost; the order applies at once), 50 at a time with "Load more" (keyset pages, whose
 * cursor carries the order), and the same filters in the same order as a CSV download (`GET /runs/export`).
 */
import type { RunSummary } from "@agentline/api/runs/RunSearch"
import { Effect } from "effect"
import { type FormEvent, useState } from "react"
import { Link } from "react-router"
import { client } from "../../api/client.js"
import { useAction, useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { Badge, Field, formatDate, Loading } from "../agents/ui.js"
import { outcomeTone } from "./RunsTable.js"
import { emptySearch, exportHref, listParams, OUTCOMES, type RunSearchForm, SORTS } from "./runSearch.js"

export const RunSearch = () => {
  const [form, setForm] = useState<RunSearchForm>(emptySearch)
  // What the list shows: the form as last submitted (the export link follows it too).
  const [applied, setApplied] = useState<RunSearchForm>(emptySearch)
  const [more, setMore] = useState<ReadonlyArray<RunSummary>>([])
  const [cursor, setCursor] = useState<string | null>(null)
  const agents = useApi(() => client.workflows.list({ urlParams: { status: "active,archived" } }), [])
  const campaigns = useApi(() => client.campaigns.list({ urlParams: { page: 1, limit: 100 } }), [])
  const first = useApi(
    () => Effect.flatMap(listParams(applied), (urlParams) => client.runs.list({ urlParams })),
    [applied]
  )
  const next = useAction((after: string) => Effect.flatMap(listParams(applied, after), (urlParams) => client.runs.list({ urlParams })))
  const set = (key: keyof RunSearchForm) => (value: string) => setForm({ ...form, [key]: value })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    setMore([])
    setCursor(null)
    setApplied(form)
  }
  /** A new order applies at once (to the filters as last searched) and starts the list again. */
  const sortBy = (sort: string) => {
    setForm({ ...form, sort })
    setMore([])
    setCursor(null)
    setApplied({ ...applied, sort })
  }
  const clear = () => {
    setForm(emptySearch)
    setApplied(emptySearch)
    setMore([])
    setCursor(null)
  }
  const loadMore = async () => {
    const after = cursor ?? first.data?.next_cursor
    if (after === null || after === undefined) return
    const result = await next.run(after)
    if (result._tag === "Right") {
      setMore([...more, ...result.right.runs])
      setCursor(result.right.next_cursor)
    }
  }
  const runs = [...(first.data?.runs ?? []), ...more]
  const hasMore = more.length === 0 ? first.data?.next_cursor != null : cursor !== null
  const input = (key: keyof RunSearchForm, type = "text") => (props: { id: string }) => (
    <input {...props} type={type} value={form[key]} onChange={(e) => set(key)(e.target.value)} />
  )
  const select = (key: keyof RunSearchForm, options: ReadonlyArray<readonly [string, string]>) => (props: { id: string }) => (
    <select {...props} value={form[key]} onChange={(e) => set(key)(e.target.value)}>
      <option value="">Any</option>
      {options.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
    </select>
  )
  return (
    <section aria-labelledby="all-runs-heading" className="runs">
      <h2 id="all-runs-heading">All runs</h2>
      <form role="search" className="filters" onSubmit={submit} aria-label="Search runs">
        <Field label="Search" hint="Every word must be in the conversation or the gathered values">{input("q", "search")}</Field>
        <Field label="Agent">{select("workflow_id", (agents.data ?? []).map((a) => [String(a.id), a.name] as const))}</Field>
        <Field label="Campaign">{select("campaign_id", (campaigns.data?.campaigns ?? []).map((c) => [String(c.id), c.name] as const))}</Field>
        <Field label="Status">{select("status", [["completed", "completed"], ["in_progress", "in progress"]])}</Field>
        <Field label="Outcome">{select("outcome", OUTCOMES.map((o) => [o, o] as const))}</Field>
        <Field label="Disposition" hint="One or more, separated by commas">{input("disposition")}</Field>
        <Field label="Direction">{select("call_type", [["outbound", "outbound"], ["inbound", "inbound"]])}</Field>
        <Field label="Phone number">{input("phone_number", "tel")}</Field>
        <Field label="From">{input("from", "date")}</Field>
        <Field label="To">{input("to", "date")}</Field>
        <div className="actions">
          <button type="submit" className="primary">Search</button>
          <button type="button" onClick={clear}>Clear</button>
          <a className="button" href={exportHref(applied)} download>Export CSV</a>
        </div>
      </form>
      <ApiError error={first.error} />
      <ApiError error={next.error} />
      {first.data === undefined ? (first.error === undefined && <Loading what="runs" />) : (
        <>
          <div className="list-header">
            <p className="hint" role="status">{first.loading ? "Searching…" : runs.length === 0 ? "No run matches." : `${runs.length}${hasMore ? "+" : ""} ${runs.length === 1 && !hasMore ? "run" : "runs"}`}</p>
            <label className="inline-field">
              Sort{" "}
              <select value={applied.sort} onChange={(e) => sortBy(e.target.value)}>
                {SORTS.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
              </select>
            </label>
          </div>
          {runs.length > 0 && (
            <div className="table-wrap">
              <table className="stack" data-testid="all-runs">
                <thead>
                  <tr>
                    <th scope="col">Run</th>
                    <th scope="col">Started</th>
                    <th scope="col">Agent</th>
                    <th scope="col">Number</th>
                    <th scope="col">Outcome</th>
                    <th scope="col">Disposition</th>
                    <th scope="col">Duration</th>
                    <th scope="col">Cost</th>
                  </tr>
                </thead>
                <tbody>
                  {runs.map((run) => (
                    <tr key={run.id}>
                      <td data-label="Run"><Link to={`/runs/${run.workflow_id}/${run.id}`}>{run.name}</Link></td>
                      <td data-label="Started">{formatDate(run.created_at)}</td>
                      <td data-label="Agent">{run.workflow_name}</td>
                      <td data-label="Number">{run.phone_number ?? "—"}</td>
                      <td data-label="Outcome">
                        <Badge tone={outcomeTone(run.outcome ?? (run.status === "in_progress" ? "in progress" : "unknown"))}>
                          {run.outcome ?? (run.status === "in_progress" ? "in progress" : "unknown")}
                        </Badge>
                      </td>
                      <td data-label="Disposition">{run.disposition ?? "—"}</td>
                      <td data-label="Duration">{Math.round(run.duration_seconds)} s</td>
                      <td data-label="Cost">${run.cost_usd.toFixed(4)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {hasMore && <button type="button" onClick={loadMore} disabled={next.pending}>{next.pending ? "Loading…" : "Load more"}</button>}
        </>
      )}
    </section>
  )
}
