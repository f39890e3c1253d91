/**
 * A campaign's live view: its state and the actions it allows, the counters, the calls in progress,
 * the attempts still waiting (first tries and retries due), the calling window's next opening, the
 * breaker's state and the log, reloaded every 1.5 s while the campaign runs; the report and the contacts
 * file to download. Its settings can be changed
 * while it is draft or paused; a completed campaign can be redialed once.
 */
import type { Campaign } from "@agentline/api/campaigns/Campaign"
import type { Run } from "@agentline/api/runs/Run"
import { CampaignId } from "@agentline/api/Ids"
import { Effect, Either } from "effect"
import { type FormEvent, useCallback, useState } from "react"
import { Link, useNavigate, useParams } from "react-router"
import { client } from "../../api/client.js"
import { runApi, useAction, useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { PageTitle } from "../../components/PageTitle.js"
import { Badge, Checkbox, Field, formatDate, Loading, routeId, useInterval } from "../agents/ui.js"
import { RunsTable } from "../runs/RunsTable.js"
import { inProgressRuns } from "../runs/runView.js"
import {
  ACTION_LABELS,
  availableActions,
  breakerState,
  type CampaignAction,
  DAY_NAMES,
  isEditable,
  liveFigures,
  nextOpening,
  type SettingsForm,
  settingsForm,
  settingsRequest
} from "./campaignView.js"
import { SettingsFields, settingsErrors } from "./SettingsFields.js"

/**
 * The server's own progress figures (`GET /campaign/{id}/progress`): the share done and the calls that
 * ended busy, unanswered or failed (retries included), loaded again whenever the campaign's counters move;
 * and the downloads: the report of every contact and the contacts file the campaign was created from.
 */
const ServerProgress = ({ campaign }: { readonly campaign: Campaign }) => {
  const path = { path: { campaign_id: campaign.id } }
  const progress = useApi(() => client.campaigns.progress(path), [campaign.id, campaign.state, campaign.processed_rows, campaign.executed_count])
  const source = useAction(() => client.campaigns.sourceDownloadUrl(path))
  const downloadSource = async () => {
    const result = await source.run()
    // By its path on this page's origin (the link is signed for the server's public address).
    if (Either.isRight(result)) {
      const url = new URL(result.right.download_url)
      window.location.assign(`${url.pathname}${url.search}`)
    }
  }
  return (
    <>
      <ApiError error={progress.error} />
      {progress.data !== undefined && (
        <dl className="counters" data-testid="campaign-progress">
          <div><dt>Percent done</dt><dd data-counter="percent">{progress.data.progress_percentage}%</dd></div>
          <div><dt>Failed calls (busy, no answer, failed)</dt><dd data-counter="failed-calls">{progress.data.failed_calls}</dd></div>
        </dl>
      )}
      <div className="actions">
        <a className="button" href={`/api/v1/campaign/${campaign.id}/report`} download>Download report (CSV)</a>
        <button type="button" onClick={downloadSource} disabled={source.pending}>Download contacts file</button>
      </div>
      <ApiError error={source.error} title="No link to the contacts file" />
    </>
  )
}

export const stateTone = (state: string): "good" | "warn" | "bad" | "info" | "neutral" =>
  state === "running" ? "info" : state === "completed" ? "good" : state === "paused" ? "warn" : state === "failed" ? "bad" : "neutral"

export const CampaignPage = () => {
  const id = routeId(useParams().campaignId)
  if (id === undefined) return <p className="error" role="alert">This is not a campaign's address.</p>
  return <LiveCampaign key={id} id={CampaignId.make(id)} />
}

const LiveCampaign = ({ id }: { readonly id: CampaignId }) => {
  const campaign = useApi(() => client.campaigns.get({ path: { campaign_id: id } }), [id])
  // The calls in progress come from the runs table's own first page: one load, so the two never disagree.
  const [firstPage, setFirstPage] = useState<ReadonlyArray<Run> | undefined>(undefined)
  const running = campaign.data?.state === "running"
  const tick = useCallback(() => campaign.reload(), [campaign.reload])
  const inProgress = inProgressRuns(firstPage ?? [])
  // Until the last call has ended too (a campaign completes when its contacts' outcomes are final).
  useInterval(tick, 1500, running || inProgress.length > 0)
  // What the last action did; shown while the campaign is still in the state it led to.
  const [notice, setNotice] = useState<{ readonly text: string; readonly state: string } | null>(null)
  const act = useAction((action: Exclude<CampaignAction, "redial">) => {
    const path = { path: { campaign_id: id } }
    switch (action) {
      case "start":
        return client.campaigns.start(path)
      case "pause":
        return client.campaigns.pause(path)
      case "resume":
        return client.campaigns.resume(path)
      case "cancel":
        return client.campaigns.cancel(path)
    }
  })
  const [redialing, setRedialing] = useState(false)

  if (campaign.data === undefined) return campaign.error !== undefined ? <ApiError error={campaign.error} /> : <Loading what="the campaign" />
  const c = campaign.data
  const figures = liveFigures(c)
  const breaker = breakerState(c)
  const now = new Date()
  const opening = nextOpening(c.schedule_config, now)
  const run = async (action: Exclude<CampaignAction, "redial">) => {
    setNotice(null)
    const result = await act.run(action)
    if (Either.isRight(result)) {
      setNotice({ text: `Campaign ${result.right.state}.`, state: result.right.state })
      tick()
    }
  }

  return (
    <section className="campaign">
      <PageTitle title={`Campaign ${c.name}`}>{c.name}</PageTitle>
      <div className="card">
        <p>
          <span data-testid="campaign-state"><Badge tone={stateTone(c.state)}>{c.state}</Badge></span> Agent <Link to={`/agents/${c.workflow_id}`}>{c.workflow_name}</Link> · via{" "}
          {c.telephony_configuration_name ?? "the default outbound configuration"} · created {formatDate(c.created_at)}
          {c.started_at !== null && <> · started {formatDate(c.started_at)}</>}
          {c.completed_at !== null && <> · ended {formatDate(c.completed_at)}</>}
        </p>
        {c.parent_campaign_id !== null && <p>Redial of <Link to={`/campaigns/${c.parent_campaign_id}`}>campaign {c.parent_campaign_id}</Link>.</p>}
        {c.redialed_campaign_id !== null && <p>Redialed as <Link to={`/campaigns/${c.redialed_campaign_id}`}>campaign {c.redialed_campaign_id}</Link>.</p>}
        <div className="actions">
          {availableActions(c.state, c.redialed_campaign_id).map((action) =>
            action === "redial"
              ? <button key={action} type="button" aria-expanded={redialing} onClick={() => setRedialing(!redialing)}>{ACTION_LABELS.redial}</button>
              : (
                <button key={action} type="button" className={action === "cancel" ? "danger" : action === "start" || action === "resume" ? "primary" : undefined} disabled={act.pending} onClick={() => run(action)}>
                  {ACTION_LABELS[action]}
                </button>
              )
          )}
        </div>
        <p role="status">{notice !== null && notice.state === c.state ? notice.text : ""}</p>
        <ApiError error={act.error} />
        {redialing && <Redial campaign={c} />}
      </div>

      <section aria-labelledby="live-heading" className="card">
        <h2 id="live-heading">Progress {running && <span className="live-dot" aria-label="updating live" />}</h2>
        <div className="progress-row">
          <label htmlFor="campaign-progress">Contacts done</label>
          <progress id="campaign-progress" max={figures.total ?? 1} value={figures.total === null ? 0 : figures.processed}>
            {figures.progress === null ? "unknown" : `${Math.round(figures.progress * 100)}%`}
          </progress>
          <span>{figures.processed} of {figures.total ?? "?"}</span>
        </div>
        <dl className="counters" data-testid="campaign-counters">
          <div><dt>Contacts</dt><dd data-counter="total">{figures.total ?? "importing…"}</dd></div>
          <div><dt>Done</dt><dd data-counter="processed">{figures.processed}</dd></div>
          <div><dt>Reached</dt><dd data-counter="reached">{figures.reached}</dd></div>
          <div><dt>Not reached</dt><dd data-counter="failed">{figures.failed}</dd></div>
          <div><dt>Skipped (do not call)</dt><dd data-counter="skipped">{figures.skipped}</dd></div>
          <div><dt>Calls placed</dt><dd data-counter="placed">{figures.attemptsPlaced}</dd></div>
          <div><dt>Calls in progress</dt><dd data-counter="in-progress">{firstPage === undefined ? "…" : inProgress.length}</dd></div>
          <div><dt>Waiting to be dialed (first tries and retries due)</dt><dd data-counter="waiting">{figures.attemptsWaiting}</dd></div>
        </dl>
        <ServerProgress campaign={c} />
        {inProgress.length > 0 && (
          <>
            <h3>Calls in progress</h3>
            <ul>{inProgress.map((r) => <li key={r.id}><Link to={`/runs/${r.workflow_id}/${r.id}`}>{r.name}</Link> since {formatDate(r.created_at)}</li>)}</ul>
          </>
        )}
        <h3>Calling window</h3>
        <p data-testid="calling-window">
          {c.schedule_config === null || !c.schedule_config.enabled
            ? "No schedule: calls are placed at any time."
            : opening === null
            ? `No window opens (time zone ${c.schedule_config.timezone ?? "UTC"}).`
            : opening.getTime() <= now.getTime()
            ? `Open now (${c.schedule_config.timezone ?? "UTC"}).`
            : `Closed; next opens ${formatDate(opening.toISOString())} (your time).`}
        </p>
        {c.schedule_config !== null && c.schedule_config.enabled && (
          <ul className="hint">
            {c.schedule_config.slots.map((s, i) => <li key={i}>{DAY_NAMES[s.day_of_week] ?? s.day_of_week} {s.start_time}–{s.end_time} ({c.schedule_config!.timezone ?? "UTC"})</li>)}
          </ul>
        )}
        <h3>Circuit breaker</h3>
        <p data-testid="breaker-state">
          {breaker.state === "disabled"
            ? "Off: failures never pause this campaign."
            : breaker.state === "tripped"
            ? <><Badge tone="bad">tripped</Badge> {breaker.message} ({formatDate(breaker.at)}). Resume to dial again.</>
            : <><Badge tone="good">closed</Badge> Pauses the campaign when more than {Math.round(breaker.threshold * 100)}% of at least {breaker.minCalls} calls in {breaker.windowSeconds} s fail.</>}
        </p>
      </section>

      <section aria-labelledby="log-heading" className="card">
        <h2 id="log-heading">Log</h2>
        {c.logs.length === 0 ? <p className="hint">Nothing logged yet.</p> : (
          <ol className="log" reversed>
            {[...c.logs].reverse().map((entry, index) => (
              <li key={`${entry.ts}-${index}`} className={`log-${entry.level}`}>
                <time dateTime={entry.ts}>{formatDate(entry.ts)}</time> <Badge tone={entry.level === "error" ? "bad" : entry.level === "warning" ? "warn" : "neutral"}>{entry.level}</Badge>{" "}
                <code>{entry.event}</code> {entry.message}
              </li>
            ))}
          </ol>
        )}
      </section>

      <CampaignSettings key={`${c.state}-${c.id}`} campaign={c} onSaved={tick} />
      <RunsTable source={{ kind: "campaign", campaignId: c.id }} live={running} onFirstPage={setFirstPage} />
    </section>
  )
}

const CampaignSettings = ({ campaign, onSaved }: { readonly campaign: Campaign; readonly onSaved: () => void }) => {
  const editable = isEditable(campaign.state)
  const [form, setForm] = useState<SettingsForm>(() => settingsForm(campaign))
  const [name, setName] = useState(campaign.name)
  const [local, setLocal] = useState<Record<string, string>>({})
  const [saved, setSaved] = useState(false)
  const update = useAction((payload: Parameters<typeof client.campaigns.update>[0]["payload"]) =>
    client.campaigns.update({ path: { campaign_id: CampaignId.make(campaign.id) }, payload })
  )
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setSaved(false)
    const built = settingsRequest(form)
    if ("errors" in built) return setLocal(built.errors)
    setLocal({})
    const result = await update.run({ name: name.trim(), ...built.request })
    if (Either.isRight(result)) {
      setSaved(true)
      onSaved()
    }
  }
  const errors = settingsErrors(update.error, local)
  return (
    <section aria-labelledby="settings-heading" className="card">
      <h2 id="settings-heading">Settings</h2>
      {!editable ? (
        <>
          <p className="hint">Settings can be changed while the campaign is draft or paused.</p>
          <dl className="counters">
            <div><dt>Calls at once</dt><dd>{campaign.max_concurrency ?? "organization limit"}</dd></div>
            <div><dt>Retries</dt><dd>{campaign.retry_config.enabled === false ? "off" : `${campaign.retry_config.max_retries ?? 2} after ${campaign.retry_config.retry_delay_seconds ?? 120} s`}</dd></div>
            <div><dt>Breaker</dt><dd>{campaign.circuit_breaker.enabled === false ? "off" : `${Math.round((campaign.circuit_breaker.failure_threshold ?? 0.5) * 100)}% in ${campaign.circuit_breaker.window_seconds ?? 120} s`}</dd></div>
          </dl>
        </>
      ) : (
        <form onSubmit={submit} noValidate>
          <Field label="Campaign name" required errors={errors.name}>
            {(props) => <input {...props} value={name} maxLength={255} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <SettingsFields form={form} onChange={setForm} errors={errors} />
          <ApiError error={update.error} title="Not saved" />
          <p role="status">{saved ? "Settings saved." : ""}</p>
          <div className="actions">
            <button type="submit" className="primary" disabled={update.pending}>{update.pending ? "Saving…" : "Save settings"}</button>
          </div>
        </form>
      )}
    </section>
  )
}

const Redial = ({ campaign }: { readonly campaign: Campaign }) => {
  const navigate = useNavigate()
  const [name, setName] = useState(`${campaign.name} (redial)`)
  const [busy, setBusy] = useState(true)
  const [noAnswer, setNoAnswer] = useState(true)
  const [voicemail, setVoicemail] = useState(true)
  const [error, setError] = useState<unknown>(undefined)
  const [pending, setPending] = useState(false)
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setPending(true)
    const result = await runApi(
      client.campaigns.redial({
        path: { campaign_id: CampaignId.make(campaign.id) },
        payload: { name: name.trim(), retry_on_busy: busy, retry_on_no_answer: noAnswer, retry_on_voicemail: voicemail }
      }).pipe(Effect.map((child) => child.id))
    )
    setPending(false)
    if (Either.isLeft(result)) return setError(result.left)
    navigate(`/campaigns/${result.right}`)
  }
  return (
    <form onSubmit={submit} noValidate className="redial" aria-label="Redial">
      <p>Call again, in a new campaign, the contacts this one did not reach because they were:</p>
      <Checkbox label="busy" checked={busy} onChange={setBusy} />
      <Checkbox label="not answering" checked={noAnswer} onChange={setNoAnswer} />
      <Checkbox label="a voicemail" checked={voicemail} onChange={setVoicemail} />
      <Field label="Name of the new campaign">
        {(props) => <input {...props} value={name} maxLength={255} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <ApiError error={error} title="Not redialed" />
      <div className="actions">
        <button type="submit" className="primary" disabled={pending || (!busy && !noAnswer && !voicemail)}>Create the redial campaign</button>
      </div>
    </form>
  )
}
