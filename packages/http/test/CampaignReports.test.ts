/**
 * A campaign's progress, report and contacts file on both databases (docs/reports.md): a campaign run
 * through the simulator (one contact reached, one busy twice, one unanswered twice), its progress before
 * and after, the report's line per contact with its last run, the signed link to the uploaded file, and
 * nothing of it for another organization.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { advanceUntil, csvOf, setupDialing, uploadCsv } from "./DispatchHarness.js"
import { call, dialects, type Reply, seedOrganization, TestApp } from "./Harness.js"

const ok = (reply: Reply) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body
}

/** A GET with its headers, for a download's. */
const download = (path: string, apiKey?: string) =>
  Effect.gen(function*() {
    const request = HttpClientRequest.get(path).pipe(apiKey === undefined ? (r) => r : HttpClientRequest.setHeader("x-api-key", apiKey))
    const response = yield* (yield* HttpClient.HttpClient).execute(request)
    return { status: response.status, headers: response.headers, text: yield* response.text }
  }).pipe(Effect.scoped, Effect.orDie)

/** RFC 4180 lines of a CSV without embedded line breaks, each split into fields. */
const parseCsv = (text: string): Array<Array<string>> =>
  text.trimEnd().split("\r\n").map((line) => {
    const fields: Array<string> = []
    let field = ""
    let quoted = false
    for (let i = 0; i < line.length; i++) {
      const ch = line[i]!
      if (quoted) {
        if (ch === "\"" && line[i + 1] === "\"") (field += "\"", i++)
        else if (ch === "\"") quoted = false
        else field += ch
      } else if (ch === "\"") quoted = true
      else if (ch === ",") (fields.push(field), field = "")
      else field += ch
    }
    fields.push(field)
    return fields
  })

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`Campaign progress, report and source [${dialect}]`, (it) => {
    it.effect("a simulated campaign's progress, its report per contact and its signed contacts file; 404 for another organization", () =>
      Effect.gen(function*() {
        const reached = "+14155550100"
        const busy = "+14155550101"
        const unanswered = "+14155550102"
        const setup = yield* setupDialing({
          simulator: {
            talk_seconds: 3,
            rules: [
              { match: "exact", pattern: busy, outcomes: ["busy"] },
              { match: "exact", pattern: unanswered, outcomes: ["no_answer"] }
            ]
          }
        })
        const apiKey = setup.apiKey
        const csv = csvOf([reached, busy, unanswered], (i) => ({ first_name: ["Ada", "Grace", "Alan"][i]! }))
        const key = yield* uploadCsv(setup.principal, csv)
        const campaign = ok(yield* call("POST", "/api/v1/campaign/create", {
          apiKey,
          body: {
            name: "Report",
            workflow_id: setup.agent.id,
            source_type: "csv",
            source_id: key,
            retry_config: { enabled: true, max_retries: 1, retry_delay_seconds: 1 },
            circuit_breaker: { enabled: false }
          }
        }))

        const before = ok(yield* call("GET", `/api/v1/campaign/${campaign.id}/progress`, { apiKey }))
        expect(before).toEqual({
          campaign_id: campaign.id,
          state: "draft",
          total_rows: 3,
          processed_rows: 0,
          failed_calls: 0,
          progress_percentage: 0,
          source_sync: { status: "completed", last_synced_at: campaign.created_at, error: null },
          rate_limit: 0,
          started_at: null,
          completed_at: null
        })
        const emptyReport = yield* download(`/api/v1/campaign/${campaign.id}/report`, apiKey)
        expect(parseCsv(emptyReport.text).map((line) => line.slice(0, 7))).toEqual([
          ["row_number", "phone_number", "state", "outcome", "attempts", "disposition", "run_id"],
          // The file's line numbers (the header is line 1).
          ["2", reached, "queued", "", "0", "", ""],
          ["3", busy, "queued", "", "0", "", ""],
          ["4", unanswered, "queued", "", "0", "", ""]
        ])

        ok(yield* call("POST", `/api/v1/campaign/${campaign.id}/start`, { apiKey }))
        const done = yield* advanceUntil(setup.principal, campaign.id, ["completed"])

        const after = ok(yield* call("GET", `/api/v1/campaign/${campaign.id}/progress`, { apiKey }))
        expect(after).toMatchObject({
          state: "completed",
          total_rows: 3,
          processed_rows: 3,
          // Two calls each to the busy and the unanswered number.
          failed_calls: 4,
          progress_percentage: 100,
          started_at: done.started_at,
          completed_at: done.completed_at
        })
        expect(after.started_at).not.toBeNull()

        const runs = ok(yield* call("GET", `/api/v1/campaign/${campaign.id}/runs?limit=100`, { apiKey })).runs as Array<Reply["body"]>
        expect(runs).toHaveLength(5)
        const lastRunTo = (phone: string) =>
          runs.filter((r) => r.initial_context.phone_number === phone).sort((a, b) => b.id - a.id)[0]

        const report = yield* download(`/api/v1/campaign/${campaign.id}/report`, apiKey)
        expect(report.status).toBe(200)
        expect(report.headers["content-type"]).toContain("text/csv")
        expect(report.headers["content-disposition"]).toBe(`attachment; filename="campaign-${campaign.id}-report.csv"`)
        const [header, ...lines] = parseCsv(report.text)
        expect(header).toEqual([
          "row_number", "phone_number", "state", "outcome", "attempts", "disposition", "run_id",
          "last_call_at", "duration_seconds", "cost_usd", "gathered_context"
        ])
        const byPhone = Object.fromEntries(lines.map((line) => [line[1], Object.fromEntries(header!.map((h, i) => [h, line[i]]))]))
        expect(lines.map((line) => line[1])).toEqual([reached, busy, unanswered])
        expect(byPhone[reached]).toMatchObject({ state: "done", outcome: "completed", attempts: "1", run_id: String(lastRunTo(reached).id) })
        expect(Number(byPhone[reached]!.duration_seconds)).toBeCloseTo(3, 0)
        expect(JSON.parse(byPhone[reached]!.gathered_context!)).toMatchObject({ outcome: "completed" })
        expect(byPhone[busy]).toMatchObject({ state: "exhausted", outcome: "busy", attempts: "2", disposition: "busy", run_id: String(lastRunTo(busy).id) })
        expect(byPhone[unanswered]).toMatchObject({ state: "exhausted", outcome: "no_answer", attempts: "2", run_id: String(lastRunTo(unanswered).id) })
        expect(byPhone[unanswered]!.last_call_at).toBe(lastRunTo(unanswered).created_at)

        const link = ok(yield* call("GET", `/api/v1/campaign/${campaign.id}/source-download-url`, { apiKey }))
        expect(link.expires_in).toBe(3600)
        const url = new URL(link.download_url)
        expect(url.pathname).toMatch(/^\/api\/v1\/public\/download\/campaign-source\//)
        const file = yield* download(url.pathname)
        expect(file).toMatchObject({ status: 200, text: csv })
        expect(file.headers["content-disposition"]).toBe(`attachment; filename="contacts.csv"`)
        const token = decodeURIComponent(url.pathname.split("/").at(-1)!)
        const [c, o, expires, signature] = token.split(".")
        // Another campaign, organization or expiry under the same signature, or a run's link, is the same 404.
        for (const forged of [`${Number(c) + 1}.${o}.${expires}.${signature}`, `${c}.${Number(o) + 1}.${expires}.${signature}`, `${c}.${o}.${Number(expires) + 60}.${signature}`, "1.1.1"]) {
          expect((yield* download(`/api/v1/public/download/campaign-source/${forged}`)).status).toBe(404)
        }

        // The link lives AGENTLINE_PUBLIC_LINK_TTL_SECONDS (3600 by default).
        yield* TestClock.adjust(3_601_000)
        expect((yield* download(url.pathname)).status).toBe(404)

        const other = yield* seedOrganization()
        for (const path of ["progress", "report", "source-download-url"]) {
          const reply = yield* call("GET", `/api/v1/campaign/${campaign.id}/${path}`, { apiKey: other.apiKey })
          expect(reply, path).toEqual({ status: 404, body: { detail: "Campaign not found" } })
          expect((yield* call("GET", `/api/v1/campaign/999999/${path}`, { apiKey })).status).toBe(404)
          expect((yield* call("GET", `/api/v1/campaign/${campaign.id}/${path}`)).status).toBe(401)
        }
      }))
  })
}
