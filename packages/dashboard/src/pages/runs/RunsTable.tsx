/**
 * The runs of an agent or of a campaign, a page at a time, with filters by outcome, disposition and
 * date. The API pages runs without filtering them, so the filters apply to the loaded page (up to 100
 * runs); the table says so.
 */
import { CampaignId, WorkflowId } from "@agentline/api/Ids"
import type { Run } from "@agentline/api/runs/Run"
import { useCallback, useEffect, useState } from "react"
import { Link } from "react-router"
import { client } from "../../api/client.js"
import { useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { Badge, Field, formatDate, Loading, useInterval } from "../agents/ui.js"
import { filterChoices, filterRuns, noFilters, type RunFilters, runDisposition, runOutcome } from "./runView.js"

export type RunsSource = { readonly kind: "agent"; readonly workflowId: number } | { readonly kind: "campaign"; readonly campaignId: number }

const PAGE_SIZE = 100

export const outcomeTone = (outcome: string): "good" | "warn" | "bad" | "info" | "neutral" =>
  outcome === "completed" ? "good" : outcome === "in progress" ? "info" : outcome === "busy" || outcome === "no_answer" || outcome === "voicemail" ? "warn" : outcome === "unknown" ? "neutral" : "bad"

export const RunsTable = ({ live = false, onFirstPage, source }: {
  readonly source: RunsSource
  readonly live?: boolean
  /** Told the first page's runs each time they load (the campaign's live view lists its calls in progress from them). */
  readonly onFirstPage?: ((runs: ReadonlyArray<Run>) => void) | undefined
}) => {
  const [page, setPage] = useState(1)
  const [filters, setFilters] = useState<RunFilters>(noFilters)
  const runs = useApi(
    () =>
      source.kind === "agent"
        ? client.workflows.runs({ path: { workflow_id: WorkflowId.make(source.workflowId) }, urlParams: { page, limit: PAGE_SIZE } })
        : client.campaigns.runs({ path: { campaign_id: CampaignId.make(source.campaignId) }, urlParams: { page, limit: PAGE_SIZE } }),
    [source.kind, source.kind === "agent" ? source.workflowId : source.campaignId, page]
  )
  const reload = useCallback(() => runs.reload(), [runs.reload])
  useEffect(() => {
    if (page === 1 && runs.data !== undefined) onFirstPage?.(runs.data.runs)
  }, [page, runs.data, onFirstPage])
  // Also while a call on the page is still going: its outcome comes when it ends.
  useInterval(reload, 2000, live || (runs.data?.runs.some((r) => !r.is_completed) ?? false))
  if (runs.data === undefined) return runs.error !== undefined ? <ApiError error={runs.error} /> : <Loading what="runs" />
  const all = runs.data.runs
  const shown = filterRuns(all, filters)
  const choices = filterChoices(all)
  const set = (key: keyof RunFilters) => (value: string) => setFilters({ ...filters, [key]: value })
  return (
    <section aria-labelledby="runs-heading" className="runs">
      <h2 id="runs-heading">Runs ({runs.data.total_count})</h2>
      <fieldset className="filters">
        <legend>Filter the runs of this page</legend>
        <Field label="Outcome">
          {(props) => (
            <select {...props} value={filters.outcome} onChange={(e) => set("outcome")(e.target.value)}>
              <option value="">Any</option>
              {choices.outcomes.map((o) => <option key={o} value={o}>{o}</option>)}
            </select>
          )}
        </Field>
        <Field label="Disposition">
          {(props) => (
            <select {...props} value={filters.disposition} onChange={(e) => set("disposition")(e.target.value)}>
              <option value="">Any</option>
              {choices.dispositions.map((d) => <option key={d} value={d}>{d}</option>)}
            </select>
          )}
        </Field>
        <Field label="From">
          {(props) => <input {...props} type="date" value={filters.from} onChange={(e) => set("from")(e.target.value)} />}
        </Field>
        <Field label="To">
          {(props) => <input {...props} type="date" value={filters.to} onChange={(e) => set("to")(e.target.value)} />}
        </Field>
        <button type="button" onClick={() => setFilters(noFilters)} disabled={filters === noFilters}>Clear filters</button>
      </fieldset>
      <p className="hint" role="status">
        {shown.length === all.length ? `${all.length} runs on this page` : `${shown.length} of the ${all.length} runs on this page match`}
      </p>
      {shown.length > 0 && (
        <div className="table-wrap">
          <table className="stack">
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Started</th>
                <th scope="col">Type</th>
                <th scope="col">Outcome</th>
                <th scope="col">Disposition</th>
                <th scope="col">Called</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((run) => {
                const outcome = runOutcome(run)
                const called = run.initial_context?.called_number ?? run.initial_context?.phone_number
                return (
                  <tr key={run.id}>
                    <td data-label="Run"><Link to={`/runs/${run.workflow_id}/${run.id}`}>{run.name}</Link></td>
                    <td data-label="Started">{formatDate(run.created_at)}</td>
                    <td data-label="Type">{run.call_type}</td>
                    <td data-label="Outcome"><Badge tone={outcomeTone(outcome)}>{outcome}</Badge></td>
                    <td data-label="Disposition">{runDisposition(run) ?? "—"}</td>
                    <td data-label="Called">{typeof called === "string" ? called : "—"}</td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      )}
      {runs.data.total_pages > 1 && (
        <nav className="pager" aria-label="Pages of runs">
          <button type="button" onClick={() => setPage(page - 1)} disabled={page <= 1}>Previous page</button>
          <span>Page {page} of {runs.data.total_pages}</span>
          <button type="button" onClick={() => setPage(page + 1)} disabled={page >= runs.data.total_pages}>Next page</button>
        </nav>
      )}
    </section>
  )
}
