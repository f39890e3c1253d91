/**
 * `GET /runs` and `GET /runs/export` on both databases: every filter, full-text search, keyset pages in
 * each sort, cursors of another sort refused, organizations never see each other's runs, an export
 * of 10,000 runs streamed in chunks, and (a property) paging any list with tied sort keys in every sort
 * and order gives each run once, in order.
 */
import { CampaignId, DefinitionId, OrganizationId, WorkflowId } from "@agentline/api/Ids"
import { RunsRepo } from "@agentline/core/runs/RunsRepo"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Chunk, Effect, FastCheck, Stream } from "effect"
import { definition } from "./fixtures.js"
import { call, dialects, type Reply, seedOrganization, TestApp } from "./Harness.js"

const createAgent = (apiKey: string, name: string) =>
  Effect.map(call("POST", "/api/v1/workflow/create/definition", { apiKey, body: { name, workflow_definition: definition() } }), (r) => {
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    return r.body as { id: number; current_definition_id: number }
  })

interface Seed {
  readonly at: string
  readonly phone: string
  readonly callType?: "inbound" | "outbound"
  readonly campaignId?: number
  readonly completed?: boolean
  readonly disposition?: string
  readonly outcome?: string
  readonly duration?: number
  readonly cost?: number
  readonly said?: string
  readonly gathered?: Record<string, unknown>
}

const seedRun = (org: number, agent: { id: number; current_definition_id: number }, s: Seed) =>
  Effect.gen(function*() {
    const repo = yield* RunsRepo
    const run = yield* repo.insert({
      organization_id: OrganizationId.make(org),
      workflow_id: WorkflowId.make(agent.id),
      campaign_id: s.campaignId === undefined ? null : CampaignId.make(s.campaignId),
      definition_id: DefinitionId.make(agent.current_definition_id),
      name: `WR-${s.phone}`,
      mode: "simulator",
      call_type: s.callType ?? "outbound",
      initial_context: s.callType === "inbound" ? { caller_number: s.phone } : { called_number: s.phone },
      gathered_context: null,
      logs: null,
      now: s.at
    })
    if (s.completed === false) return run
    yield* repo.update(run.id, {
      is_completed: true,
      merge: {
        gathered_context: {
          ...(s.gathered ?? {}),
          ...(s.disposition !== undefined ? { mapped_call_disposition: s.disposition } : {}),
          ...(s.outcome !== undefined ? { outcome: s.outcome } : {})
        },
        usage_info: s.duration !== undefined ? { call_duration_seconds: s.duration } : {},
        cost_info: s.cost !== undefined ? { total_cost_usd: s.cost } : {},
        logs: s.said !== undefined ? { transcript: [{ role: "user", content: s.said }, { role: "assistant", content: "Thank you." }] } : {}
      }
    }, s.at)
    return run
  })

const ids = (body: Reply["body"]): Array<number> => body.runs.map((r: Reply["body"]) => r.id)

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`GET /runs [${dialect}]`, (it) => {
    it.effect("filters, search, sort and keyset pages over the organization's runs, never another's", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const other = yield* seedOrganization()
        const agentA = yield* createAgent(org.apiKey, "Reminders")
        const agentB = yield* createAgent(org.apiKey, "Reception")
        const foreign = yield* createAgent(other.apiKey, "Foreign")
        const o = org.admin.organization_id
        const r1 = yield* seedRun(o, agentA, {
          at: "2026-11-01T09:00:00.000Z",
          phone: "+14155550101",
          disposition: "confirmed",
          outcome: "completed",
          duration: 30,
          cost: 0.02,
          said: "Friday works for my dentist appointment",
          gathered: { first_name: "Maria" }
        })
        const r2 = yield* seedRun(o, agentA, {
          at: "2026-11-02T09:00:00.000Z",
          phone: "+14155550102",
          disposition: "busy",
          outcome: "busy",
          duration: 0,
          campaignId: 7
        })
        const r3 = yield* seedRun(o, agentB, {
          at: "2026-11-03T09:00:00.000Z",
          phone: "+14155550103",
          callType: "inbound",
          disposition: "transferred",
          outcome: "completed",
          duration: 125.5,
          cost: 0.11,
          said: "I would like to speak to billing please"
        })
        const r4 = yield* seedRun(o, agentB, { at: "2026-11-04T09:00:00.000Z", phone: "+14155550104", completed: false })
        yield* seedRun(other.admin.organization_id, foreign, {
          at: "2026-11-03T10:00:00.000Z",
          phone: "+14155550101",
          disposition: "confirmed",
          said: "Friday dentist"
        })
        const get = (query: string) =>
          Effect.map(call("GET", `/api/v1/runs${query}`, { apiKey: org.apiKey }), (r) => {
            expect(r.status, JSON.stringify(r.body)).toBe(200)
            return r.body
          })

        const all = yield* get("")
        expect(ids(all)).toEqual([r4.id, r3.id, r2.id, r1.id])
        expect(all.next_cursor).toBeNull()
        expect(all.runs[1]).toEqual({
          id: r3.id,
          workflow_id: agentB.id,
          workflow_name: "Reception",
          campaign_id: null,
          definition_id: agentB.current_definition_id,
          name: "WR-+14155550103",
          mode: "simulator",
          call_type: "inbound",
          status: "completed",
          created_at: "2026-11-03T09:00:00.000Z",
          phone_number: "+14155550103",
          disposition: "transferred",
          outcome: "completed",
          duration_seconds: 125.5,
          cost_usd: 0.11,
          gathered_context: { mapped_call_disposition: "transferred", outcome: "completed" }
        })
        expect(all.runs[0]).toMatchObject({ status: "in_progress", disposition: null, outcome: null, duration_seconds: 0, cost_usd: 0 })

        expect(ids(yield* get(`?workflow_id=${agentA.id}`))).toEqual([r2.id, r1.id])
        expect(ids(yield* get(`?workflow_id=${foreign.id}`))).toEqual([])
        expect(ids(yield* get("?campaign_id=7"))).toEqual([r2.id])
        expect(ids(yield* get("?status=in_progress"))).toEqual([r4.id])
        expect(ids(yield* get("?status=completed"))).toEqual([r3.id, r2.id, r1.id])
        expect(ids(yield* get("?disposition=confirmed,transferred"))).toEqual([r3.id, r1.id])
        expect(ids(yield* get("?outcome=busy"))).toEqual([r2.id])
        expect(ids(yield* get("?call_type=inbound"))).toEqual([r3.id])
        expect(ids(yield* get("?phone_number=%2B14155550101"))).toEqual([r1.id])
        expect(ids(yield* get("?start_date=2026-11-02&end_date=2026-11-03T09:00:00Z"))).toEqual([r3.id, r2.id])
        expect(ids(yield* get("?min_duration=1&max_duration=60"))).toEqual([r1.id])
        expect(ids(yield* get("?min_cost=0.05"))).toEqual([r3.id])
        expect(ids(yield* get("?max_cost=0.05&status=completed"))).toEqual([r2.id, r1.id])
        // Full-text: a word the caller said, a gathered value, all words required, case-insensitive.
        expect(ids(yield* get("?q=dentist"))).toEqual([r1.id])
        expect(ids(yield* get("?q=MARIA"))).toEqual([r1.id])
        expect(ids(yield* get("?q=billing%20please"))).toEqual([r3.id])
        expect(ids(yield* get("?q=billing%20dentist"))).toEqual([])
        expect(ids(yield* get("?q=%22%29%28*%20OR"))).toEqual([])
        expect(ids(yield* get("?q=friday&workflow_id=" + agentA.id))).toEqual([r1.id])

        // Sorts, and keyset pages that add up to the whole list in each.
        expect(ids(yield* get("?sort_by=duration&sort_order=desc"))).toEqual([r3.id, r1.id, r4.id, r2.id])
        expect(ids(yield* get("?sort_by=cost&sort_order=asc"))).toEqual([r2.id, r4.id, r1.id, r3.id])
        for (const sort of ["created_at", "duration", "cost"]) {
          for (const order of ["asc", "desc"]) {
            const whole = ids(yield* get(`?sort_by=${sort}&sort_order=${order}`))
            const paged: Array<number> = []
            let cursor: string | null = null
            do {
              const page: Reply["body"] = yield* get(`?sort_by=${sort}&sort_order=${order}&limit=1${cursor === null ? "" : `&cursor=${cursor}`}`)
              paged.push(...ids(page))
              cursor = page.next_cursor
            } while (cursor !== null)
            expect(paged, `${sort} ${order}`).toEqual(whole)
          }
        }
        const first = yield* get("?limit=2")
        expect(ids(first)).toEqual([r4.id, r3.id])
        const wrongSort = yield* call("GET", `/api/v1/runs?sort_by=cost&cursor=${first.next_cursor}`, { apiKey: org.apiKey })
        expect(wrongSort.status).toBe(400)
        expect(wrongSort.body.detail).toContain("sort_by=created_at")
        expect((yield* call("GET", "/api/v1/runs?cursor=garbage", { apiKey: org.apiKey })).status).toBe(400)

        const invalid = yield* call("GET", "/api/v1/runs?status=lost&limit=0&start_date=yesterday&min_cost=-1", { apiKey: org.apiKey })
        expect(invalid.status).toBe(422)
        expect(JSON.stringify(invalid.body)).toContain("start_date")
        expect((yield* call("GET", "/api/v1/runs")).status).toBe(401)

        // The foreign organization sees its own run only.
        const theirs = yield* call("GET", "/api/v1/runs?q=dentist", { apiKey: other.apiKey })
        expect(theirs.body.runs.map((r: Reply["body"]) => r.workflow_name)).toEqual(["Foreign"])

        const csv = yield* call("GET", "/api/v1/runs/export?disposition=confirmed,transferred", { apiKey: org.apiKey })
        expect(csv.status).toBe(200)
        const lines = (csv.body as string).trimEnd().split("\r\n")
        expect(lines[0]).toBe(
          "id,created_at,workflow_id,workflow_name,campaign_id,name,call_type,status,phone_number,disposition,outcome,duration_seconds,cost_usd,gathered_context"
        )
        expect(lines.slice(1).map((l) => Number(l.split(",")[0]))).toEqual([r3.id, r1.id])
        const [prefix, quotedJson] = [lines[2]!.slice(0, lines[2]!.indexOf("\"{")), lines[2]!.slice(lines[2]!.indexOf("\"{"))]
        expect(prefix).toBe(
          `${r1.id},2026-11-01T09:00:00.000Z,${agentA.id},Reminders,,WR-+14155550101,outbound,completed,+14155550101,confirmed,completed,30,0.02,`
        )
        expect(JSON.parse(quotedJson.slice(1, -1).replaceAll("\"\"", "\""))).toEqual({
          first_name: "Maria",
          mapped_call_disposition: "confirmed",
          outcome: "completed"
        })
      }))

    it.effect("an export of 10,000 runs arrives streamed in many chunks, every run once, in order", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const agent = yield* createAgent(org.apiKey, "Bulk")
        const repo = yield* RunsRepo
        const base = Date.parse("2026-10-01T00:00:00.000Z")
        for (let batch = 0; batch < 10; batch++) {
          yield* repo.insertAll(Array.from({ length: 1000 }, (_, i) => {
            const n = batch * 1000 + i
            return {
              organization_id: OrganizationId.make(org.admin.organization_id),
              workflow_id: WorkflowId.make(agent.id),
              campaign_id: null,
              definition_id: DefinitionId.make(agent.current_definition_id),
              name: `WR-${n}`,
              mode: "simulator",
              call_type: "outbound" as const,
              initial_context: { called_number: `+1415${String(n).padStart(7, "0")}` },
              gathered_context: { n, tag: "bulk" },
              logs: null,
              now: new Date(base + n * 1000).toISOString()
            }
          }))
        }
        // A word in every run: more matches than a search reads first, so it walks the runs in order instead.
        const searched = yield* call("GET", "/api/v1/runs?q=bulk&limit=3", { apiKey: org.apiKey })
        expect(searched.body.runs.map((r: Reply["body"]) => r.name)).toEqual(["WR-9999", "WR-9998", "WR-9997"])
        const rare = yield* call("GET", "/api/v1/runs?q=1234&limit=3", { apiKey: org.apiKey })
        expect(rare.body.runs.map((r: Reply["body"]) => r.name)).toEqual(["WR-1234"])
        const client = yield* HttpClient.HttpClient
        const response = yield* client.execute(
          HttpClientRequest.get("/api/v1/runs/export?sort_order=asc").pipe(HttpClientRequest.setHeader("x-api-key", org.apiKey))
        )
        expect(response.status).toBe(200)
        expect(response.headers["content-type"]).toContain("text/csv")
        expect(response.headers["content-length"]).toBeUndefined()
        const chunks = yield* Stream.runCollect(response.stream)
        expect(chunks.length).toBeGreaterThan(10)
        const text = new TextDecoder().decode(Buffer.concat(Chunk.toReadonlyArray(chunks)))
        const rows = text.trimEnd().split("\r\n").slice(1)
        expect(rows.length).toBe(10_000)
        expect(rows.map((row) => row.split(",")[5])).toEqual(Array.from({ length: 10_000 }, (_, n) => `WR-${n}`))
      }).pipe(Effect.scoped))
  })
}

/** A run of the property below: few distinct values, so sort keys tie often (in-progress runs have no duration or cost: 0). */
const TiedRun = FastCheck.record({
  at: FastCheck.constantFrom("2026-11-20T10:00:00.000Z", "2026-11-20T10:00:00.001Z", "2026-11-21T09:00:00.000Z"),
  completed: FastCheck.boolean(),
  duration: FastCheck.constantFrom(0, 30, 30.5, 61),
  cost: FastCheck.constantFrom(0, 0.0123, 0.1, 0.30000000000000004)
})

const SORTS = [
  ["created_at", (r: { created_at: string }) => r.created_at],
  ["duration", (r: { duration_seconds: number }) => r.duration_seconds],
  ["cost", (r: { cost_usd: number }) => r.cost_usd]
] as const

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "300 seconds" })(`GET /runs sorted, paged [${dialect}]`, (it) => {
    it.effect.prop(
      "paging through any sorted list with ties, any page size, yields every run exactly once, in the sort's order",
      [FastCheck.array(TiedRun, { minLength: 1, maxLength: 14 }), FastCheck.integer({ min: 1, max: 4 })],
      ([runs, limit]) =>
        Effect.gen(function*() {
          const org = yield* seedOrganization()
          const agent = yield* createAgent(org.apiKey, "Ties")
          for (const [i, run] of runs.entries()) {
            yield* seedRun(org.admin.organization_id, agent, { ...run, phone: `+1415555${String(i).padStart(4, "0")}` })
          }
          const whole = (yield* call("GET", "/api/v1/runs?limit=100", { apiKey: org.apiKey })).body.runs as Array<Reply["body"]>
          expect(whole).toHaveLength(runs.length)
          for (const [sort, key] of SORTS) {
            for (const order of ["asc", "desc"] as const) {
              const expected = [...whole].sort((a, b) => {
                const [x, y] = [key(a), key(b)]
                const byKey = x < y ? -1 : x > y ? 1 : a.id - b.id
                return order === "asc" ? byKey : -byKey
              }).map((r) => r.id)
              const paged: Array<number> = []
              let cursor: string | null = null
              let pages = 0
              do {
                const reply: Reply = yield* call(
                  "GET",
                  `/api/v1/runs?sort_by=${sort}&sort_order=${order}&limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
                  { apiKey: org.apiKey }
                )
                expect(reply.status, JSON.stringify(reply.body)).toBe(200)
                paged.push(...ids(reply.body))
                cursor = reply.body.next_cursor
                pages++
              } while (cursor !== null && pages <= runs.length)
              expect(paged, `${sort} ${order}, ${limit} a page`).toEqual(expected)
              expect(new Set(paged).size).toBe(runs.length)
            }
          }
        }),
      { fastCheck: { numRuns: 15 } }
    )
  })
}
