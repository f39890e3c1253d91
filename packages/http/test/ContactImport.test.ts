/**
 * A large CSV import never freezes the server (issue 16, defect 7): the file is checked whole before
 * anything is written, then inserted in batches that let other requests' queries in. On SQLite one
 * connection serves everything, so the old single transaction made every request wait for the whole
 * import. These tests assert the interleaving, not timings (speed is `npm run bench:hostile`'s).
 */
import { CampaignsRepo } from "@agentline/core/campaigns/CampaignsRepo"
import { MAX_CONTACT_ROWS } from "@agentline/core/campaigns/CsvImport"
import { CampaignId, OrganizationId, WorkflowId } from "@agentline/api/Ids"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Fiber, Option } from "effect"
import { Campaigns, setupDialing, uploadCsv } from "./DispatchHarness.js"
import { call, TestApp } from "./Harness.js"
import { campaignRequest } from "./Wire.js"

/** A macrotask turn, so the server's sockets are served between the polling queries (SQLite answers synchronously). */
const turn = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

const areas = [212, 213, 310, 312, 404, 415, 512, 617, 646, 702, 713]

const csvOfSize = (rows: number, badLast = false) => {
  const lines = ["phone_number,first_name"]
  for (let i = 0; i < rows; i++) {
    lines.push(badLast && i === rows - 1 ? "not-a-phone,x" : `+1${areas[Math.floor(i / 10_000)]}555${String(i % 10_000).padStart(4, "0")},n${i}`)
  }
  return lines.join("\n") + "\n"
}

layer(TestApp("sqlite"), { timeout: "180 seconds" })("Contacts import under load [sqlite]", (it) => {
  it.effect("requests that need the database are answered while an import is being written", () =>
    Effect.gen(function*() {
      const setup = yield* setupDialing()
      const sql = yield* SqlClient.SqlClient
      const rows = 30_000
      const sourceId = yield* uploadCsv(setup.principal, csvOfSize(rows))
      const events: Array<string> = []
      const importing = yield* call("POST", "/api/v1/campaign/create", {
        apiKey: setup.apiKey,
        body: { name: "Big", workflow_id: setup.agent.id, source_type: "csv", source_id: sourceId }
      }).pipe(Effect.tap(() => Effect.sync(() => events.push("import answered"))), Effect.fork)

      // Wait until the import is writing and far from done, as seen by a query of our own: under one
      // long transaction this query would only run once the import had committed everything.
      let written = 0
      while (written === 0 || written === rows) {
        const [row] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM contacts WHERE organization_id = ${setup.principal.organizationId}`
        written = Number(row!.n)
        if (Option.isSome(yield* Fiber.poll(importing))) break
        yield* turn
      }
      const early = yield* Fiber.poll(importing)
      expect(written, Option.isSome(early) ? JSON.stringify(early.value).slice(0, 400) : "").toBeGreaterThan(0)
      expect(written).toBeLessThan(rows / 2)
      events.push("import seen half-written")

      const health = yield* call("GET", "/api/v1/health")
      events.push(`health ${health.status}`)
      const organization = yield* call("GET", "/api/v1/organizations/current", { apiKey: setup.apiKey })
      events.push(`organization ${organization.status}`)

      const reply = yield* Fiber.join(importing)
      expect(reply.status, JSON.stringify(reply.body).slice(0, 300)).toBe(200)
      expect(reply.body.total_rows).toBe(rows)
      expect(events).toEqual(["import seen half-written", "health 200", "organization 200", "import answered"])
    }))

  it.effect("a file with a bad last row is refused having written nothing, with no campaign left", () =>
    Effect.gen(function*() {
      const setup = yield* setupDialing()
      const sql = yield* SqlClient.SqlClient
      const sourceId = yield* uploadCsv(setup.principal, csvOfSize(5_000, true))
      let sawContacts = false
      const importing = yield* call("POST", "/api/v1/campaign/create", {
        apiKey: setup.apiKey,
        body: { name: "Bad", workflow_id: setup.agent.id, source_type: "csv", source_id: sourceId }
      }).pipe(Effect.fork)
      while (Option.isNone(yield* Fiber.poll(importing))) {
        const [row] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM contacts WHERE organization_id = ${setup.principal.organizationId}`
        if (Number(row!.n) > 0) sawContacts = true
        yield* turn
      }
      const reply = yield* Fiber.join(importing)
      expect(reply.status).toBe(400)
      expect(reply.body.detail).toContain("Invalid phone numbers in rows: 5001")
      expect(sawContacts).toBe(false)
      expect((yield* call("GET", "/api/v1/campaign/", { apiKey: setup.apiKey })).body.total_count).toBe(0)
    }))

  it.effect(`more than ${MAX_CONTACT_ROWS} contact rows: 400 naming the limit, nothing stored`, () =>
    Effect.gen(function*() {
      const setup = yield* setupDialing()
      const sourceId = yield* uploadCsv(setup.principal, csvOfSize(MAX_CONTACT_ROWS + 1))
      const reply = yield* call("POST", "/api/v1/campaign/create", {
        apiKey: setup.apiKey,
        body: { name: "Huge", workflow_id: setup.agent.id, source_type: "csv", source_id: sourceId }
      })
      expect(reply.status).toBe(400)
      expect(reply.body.detail).toContain(`more than ${MAX_CONTACT_ROWS} contact rows`)
      expect((yield* call("GET", "/api/v1/campaign/", { apiKey: setup.apiKey })).body.total_count).toBe(0)
    }), 120_000)

  it.effect("a campaign whose import did not finish cannot be started, and is what discard removes", () =>
    Effect.gen(function*() {
      const setup = yield* setupDialing()
      const repo = yield* CampaignsRepo
      const campaigns = yield* Campaigns
      const organizationId = OrganizationId.make(setup.principal.organizationId)
      const unfinished = yield* repo.insert({
        organization_id: organizationId,
        name: "Half",
        workflow_id: WorkflowId.make(setup.agent.id),
        telephony_configuration_id: null,
        source_type: "csv",
        source_id: "x",
        retry_config: {},
        max_concurrency: null,
        schedule_config: null,
        circuit_breaker: {},
        parent_campaign_id: null,
        log: { ts: new Date(0).toISOString(), level: "info", event: "campaign_created", message: "test", details: {} },
        now: new Date(0).toISOString()
      })
      const refused = yield* Effect.flip(campaigns.start(setup.principal, unfinished.id))
      expect(refused._tag).toBe("CampaignImportUnfinished")
      expect(refused.message).toContain("import did not finish")

      const done = yield* campaigns.create(setup.principal, campaignRequest({
        name: "Done",
        workflow_id: setup.agent.id,
        source_type: "csv",
        source_id: yield* uploadCsv(setup.principal, csvOfSize(3))
      })).pipe(Effect.orDie)
      yield* repo.discard({ organizationId, campaignId: CampaignId.make(done.id) })
      yield* repo.discard({ organizationId, campaignId: unfinished.id })
      expect(Option.isSome(yield* repo.find({ organizationId, campaignId: CampaignId.make(done.id) }))).toBe(true)
      expect(Option.isNone(yield* repo.find({ organizationId, campaignId: unfinished.id }))).toBe(true)
    }))
})
