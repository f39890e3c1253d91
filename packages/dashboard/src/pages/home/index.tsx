/**
 * The home page: the organization's calls over the last days (per day by outcome, minutes and cost),
 * the reach rate, and this month's usage, from the reports and usage endpoints (docs/reports.md).
 * Days are UTC days, the server's (the usage breakdown's).
 */
import { Effect } from "effect"
import { useState } from "react"
import { Link } from "react-router"
import { client } from "../../api/client.js"
import { useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { PageTitle } from "../../components/PageTitle.js"
import { Field, Loading } from "../agents/ui.js"
import { BarChart } from "./Charts.js"
import { formatMinutes, formatUsd, overview } from "./overview.js"

const OUTCOME_SERIES = [
  { key: "reached", label: "Reached", color: "#2f855a" },
  { key: "notReached", label: "Not reached", color: "#c05621" },
  { key: "inProgress", label: "In progress", color: "#3182ce" }
] as const

/** The breakdown first (its days are the server's), then each day's report, a few at a time. */
const loadOverview = (days: number) =>
  Effect.gen(function*() {
    const usage = yield* client.reports.dailyBreakdown({ urlParams: { days } })
    const reports = yield* Effect.forEach(
      usage.breakdown,
      (day) => client.reports.daily({ urlParams: { date: day.date, timezone: "UTC" } }),
      { concurrency: 4 }
    )
    return overview(usage, reports)
  })

export default function HomePage() {
  const [days, setDays] = useState(7)
  const figures = useApi(() => loadOverview(days), [days])
  const month = useApi(() => client.reports.currentPeriod(), [])
  const o = figures.data
  return (
    <section className="home">
      <PageTitle>Overview</PageTitle>
      <div className="toolbar">
        <Field label="Period">
          {(props) => (
            <select {...props} value={days} onChange={(e) => setDays(Number(e.target.value))}>
              <option value={7}>Last 7 days</option>
              <option value={14}>Last 14 days</option>
              <option value={30}>Last 30 days</option>
            </select>
          )}
        </Field>
        <Link className="button" to="/runs">All runs</Link>
      </div>
      <ApiError error={figures.error} />
      {o === undefined ? (figures.error === undefined && <Loading what="the figures" />) : (
        <>
          <dl className="counters tiles" data-testid="overview-totals">
            <div><dt>Calls</dt><dd data-figure="calls">{o.calls}</dd></div>
            <div>
              <dt>Reach rate</dt>
              <dd data-figure="reach-rate">{o.reachRate === null ? "—" : `${o.reachRate}%`}</dd>
            </div>
            <div><dt>Minutes</dt><dd data-figure="minutes">{formatMinutes(o.minutes)}</dd></div>
            <div><dt>Cost</dt><dd data-figure="cost">{formatUsd(o.cost)}</dd></div>
          </dl>
          <p className="hint">
            Reach rate: calls answered out of calls that ended ({o.reached} of {o.ended}). Days are UTC days.
          </p>
          <div className="charts">
            <section aria-labelledby="calls-chart">
              <h2 id="calls-chart">Calls per day by outcome</h2>
              <BarChart
                label="Calls per day by outcome"
                days={o.days.map((d) => d.date)}
                series={OUTCOME_SERIES}
                values={o.days.map((d) => ({ reached: d.reached, notReached: d.notReached, inProgress: d.inProgress }))}
              />
            </section>
            <section aria-labelledby="minutes-chart">
              <h2 id="minutes-chart">Minutes per day</h2>
              <BarChart
                label="Minutes per day"
                days={o.days.map((d) => d.date)}
                series={[{ key: "minutes", label: "Minutes", color: "#4c51bf" }]}
                values={o.days.map((d) => ({ minutes: d.minutes }))}
                format={formatMinutes}
              />
            </section>
            <section aria-labelledby="cost-chart">
              <h2 id="cost-chart">Cost per day</h2>
              <BarChart
                label="Cost per day in US dollars"
                days={o.days.map((d) => d.date)}
                series={[{ key: "cost", label: "Cost", color: "#805ad5" }]}
                values={o.days.map((d) => ({ cost: d.cost }))}
                format={formatUsd}
              />
            </section>
          </div>
          <details>
            <summary>The figures per day</summary>
            <div className="table-wrap">
              <table className="stack" data-testid="overview-days">
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    <th scope="col">Calls</th>
                    <th scope="col">Reached</th>
                    <th scope="col">Not reached</th>
                    <th scope="col">In progress</th>
                    <th scope="col">Minutes</th>
                    <th scope="col">Cost</th>
                  </tr>
                </thead>
                <tbody>
                  {o.days.map((d) => (
                    <tr key={d.date} data-day={d.date}>
                      <th scope="row" data-label="Day">{d.date}</th>
                      <td data-label="Calls" data-figure="calls">{d.calls}</td>
                      <td data-label="Reached" data-figure="reached">{d.reached}</td>
                      <td data-label="Not reached" data-figure="not-reached">{d.notReached}</td>
                      <td data-label="In progress" data-figure="in-progress">{d.inProgress}</td>
                      <td data-label="Minutes" data-figure="minutes">{formatMinutes(d.minutes)}</td>
                      <td data-label="Cost" data-figure="cost">{formatUsd(d.cost)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
      <section aria-labelledby="month-heading" className="card">
        <h2 id="month-heading">This month</h2>
        <ApiError error={month.error} />
        {month.data !== undefined && (
          <dl className="counters">
            <div><dt>Minutes</dt><dd data-figure="month-minutes">{formatMinutes(month.data.total_duration_seconds / 60)}</dd></div>
            <div><dt>Cost</dt><dd data-figure="month-cost">{formatUsd(month.data.used_amount_usd ?? 0)}</dd></div>
          </dl>
        )}
      </section>
    </section>
  )
}
