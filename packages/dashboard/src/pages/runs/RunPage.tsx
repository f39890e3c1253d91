/**
 * One run: the conversation, the recordings to play (the run's signed links), the call's timeline
 * (status callbacks and node transitions), what was gathered, usage and cost. Reloads every 2 s until
 * the run is complete, so a call in progress fills in by itself.
 */
import { RunId, WorkflowId } from "@agentline/api/Ids"
import { useCallback } from "react"
import { Link, useParams } from "react-router"
import { client } from "../../api/client.js"
import { useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { formatTime } from "../../components/format.js"
import { PageTitle } from "../../components/PageTitle.js"
import { Badge, formatDate, Loading, routeId, useInterval } from "../agents/ui.js"
import { outcomeTone } from "./RunsTable.js"
import {
  clock,
  flatten,
  gatheredSections,
  recordings,
  runDisposition,
  runOutcome,
  runVersion,
  timeline,
  transcriptLink,
  transcriptTurns,
  usageRows
} from "./runView.js"

/** Values longer than this are folded (a CSV column of notes should not push the rest of the page away). */
const LONG = 200

const KeyValues = ({ empty, label, value }: { readonly label: string; readonly value: unknown; readonly empty: string }) => {
  const rows = flatten(value ?? {})
  if (rows.length === 0) return <p className="hint">{empty}</p>
  return (
    <div className="table-wrap">
      <table className="kv">
        <caption className="visually-hidden">{label}</caption>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key}>
              <th scope="row">{row.key}</th>
              <td>
                {row.value.length <= LONG
                  ? row.value
                  : (
                    <details>
                      <summary>{row.value.slice(0, 120)}… ({row.value.length} characters)</summary>
                      <div className="long-value">{row.value}</div>
                    </details>
                  )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

export const RunPage = () => {
  const params = useParams()
  const workflowId = routeId(params.workflowId)
  const runId = routeId(params.runId)
  if (workflowId === undefined || runId === undefined) return <p className="error" role="alert">This is not a run's address.</p>
  return <LoadedRun workflowId={WorkflowId.make(workflowId)} runId={RunId.make(runId)} />
}

const LoadedRun = ({ runId, workflowId }: { readonly workflowId: WorkflowId; readonly runId: RunId }) => {
  const run = useApi(() => client.workflows.run({ path: { workflow_id: workflowId, run_id: runId } }), [workflowId, runId])
  // The run records its definition's id; the agent's pages speak of version numbers.
  const versions = useApi(() => client.workflows.versions({ path: { workflow_id: workflowId } }), [workflowId])
  const reload = useCallback(() => run.reload(), [run.reload])
  useInterval(reload, 2000, run.data !== undefined && !run.data.is_completed)
  if (run.data === undefined) return run.error !== undefined ? <ApiError error={run.error} /> : <Loading what="the run" />
  const r = run.data
  const outcome = runOutcome(r)
  const turns = transcriptTurns(r)
  const events = timeline(r)
  const audio = recordings(r)
  const transcript = transcriptLink(r)
  const sections = gatheredSections(r)
  const usage = usageRows(r)
  const version = runVersion(r.definition_id, versions.data)
  return (
    <article className="run-page">
      <PageTitle title={`Run ${r.name}`}>Run {r.name}</PageTitle>
      <ApiError error={run.error} />
      <div className="card">
        <p>
          <Badge tone={outcomeTone(outcome)}>{outcome}</Badge> {r.call_type} call via {r.mode}, {formatDate(r.created_at)}
          {!r.is_completed && <span role="status"> — in progress, updating…</span>}
        </p>
        <p>
          Disposition: <strong>{runDisposition(r) ?? "—"}</strong> ·{" "}
          <Link to={`/agents/${r.workflow_id}`}>Agent</Link> · <Link to={`/agents/${r.workflow_id}/runs`}>All runs of the agent</Link>
          {version !== null && <> · ran <Link to={`/agents/${r.workflow_id}/versions`}>{version}</Link> of the agent</>}
        </p>
      </div>

      <section aria-labelledby="recordings-heading">
        <h2 id="recordings-heading">Recordings</h2>
        {audio.length === 0 ? <p className="hint">{r.is_completed ? "This run has no recording." : "Recordings appear when the call ends."}</p> : (
          <ul className="recordings">
            {audio.map((rec) => (
              <li key={rec.label}>
                <span id={`rec-${rec.label.replace(/\W/g, "")}`}>{rec.label}</span>
                <audio controls preload="metadata" src={rec.url} aria-labelledby={`rec-${rec.label.replace(/\W/g, "")}`} />
                <a href={rec.url} download>Download {rec.label.toLowerCase()}</a>
              </li>
            ))}
          </ul>
        )}
        {transcript !== null && <p><a href={transcript} download>Download the transcript (text)</a></p>}
        {(audio.length > 0 || transcript !== null) && (
          <p className="hint">These links are signed and expire; share them, not this page, with people without an account.</p>
        )}
      </section>

      <section aria-labelledby="transcript-heading">
        <h2 id="transcript-heading">Conversation</h2>
        {turns.length === 0 ? <p className="hint">No conversation was recorded{r.is_completed ? "" : " yet"}.</p> : (
          <ol className="conversation">
            {turns.map((turn, index) => (
              <li key={index} className={`turn turn-${turn.speaker}`}>
                <span className="turn-who">{turn.speaker === "agent" ? "Agent" : "Caller"}</span>
                {turn.startMs !== null && <span className="turn-time"> at {clock(turn.startMs)}</span>}
                <p>{turn.text}{turn.interrupted && <em> (interrupted)</em>}</p>
              </li>
            ))}
          </ol>
        )}
      </section>

      <section aria-labelledby="timeline-heading">
        <h2 id="timeline-heading">Timeline</h2>
        {events.length === 0 ? <p className="hint">No status callbacks or node transitions recorded.</p> : (
          <ol className="timeline">
            {events.map((event, index) => (
              <li key={index} className={`timeline-${event.kind}`}>
                <time dateTime={event.at}>{formatTime(event.at, { seconds: true })}</time> <strong>{event.title}</strong>
                {event.detail !== null && <span> — {event.detail}</span>}
              </li>
            ))}
          </ol>
        )}
      </section>

      <section aria-labelledby="gathered-heading">
        <h2 id="gathered-heading">Gathered in the conversation</h2>
        <KeyValues label="Gathered in the conversation" value={sections.gathered} empty="Nothing gathered." />
      </section>
      {Object.keys(sections.call).length > 0 && (
        <section aria-labelledby="call-heading">
          <h2 id="call-heading">About the call</h2>
          <KeyValues label="About the call" value={sections.call} empty="" />
        </section>
      )}
      <section aria-labelledby="initial-heading">
        <h2 id="initial-heading">Call data</h2>
        <KeyValues label="Initial context" value={r.initial_context} empty="No call data." />
      </section>
      <section aria-labelledby="usage-heading">
        <h2 id="usage-heading">Usage and cost</h2>
        {usage.length === 0 ? <p className="hint">No usage or cost recorded.</p> : (
          <div className="table-wrap">
            <table className="kv">
              <caption className="visually-hidden">Usage and cost</caption>
              <tbody>{usage.map((row) => <tr key={row.label}><th scope="row">{row.label}</th><td>{row.value}</td></tr>)}</tbody>
            </table>
          </div>
        )}
      </section>
      {r.annotations !== null && Object.keys(r.annotations).length > 0 && (
        <section aria-labelledby="annotations-heading">
          <h2 id="annotations-heading">Annotations</h2>
          <KeyValues label="Annotations" value={r.annotations} empty="" />
        </section>
      )}
    </article>
  )
}
