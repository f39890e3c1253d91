/**
 * A campaign never dials a number on its organization's do-not-call list: the contact ends `skipped`
 * (`do_not_call`) and is counted, however the list and the CSV write the number, across many claims.
 * The list's own endpoints (adding, importing, 422s, the single call's 409) are `http/test/DoNotCall.test.ts`.
 */
import type { CreateCampaignRequest } from "@agentline/api/campaigns/Campaign"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { DoNotCall } from "../../src/do-not-call/DoNotCall.js"
import { advanceUntil, attemptsPerContact, Campaigns, csvOf, numbers, setupDialing, uploadCsv } from "../DispatchHarness.js"
import { dialects, TestServices } from "../Harness.js"

for (const dialect of dialects) {
  // Claims of 20 contacts: the 100 of the campaign take several, the listed ones spread over all of them.
  layer(TestServices(dialect, { dispatcher: { claimBatch: 20 } }), { timeout: "120 seconds" })(`Do-not-call list in campaigns [${dialect}]`, (it) => {
    it.effect("a campaign of 100 contacts with 10 on the list dials exactly 90; the 10 end skipped and counted", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing({ limit: 20, simulator: { ring_seconds: 0, talk_seconds: 1 } })
        const phones = numbers(100, "+1415444")
        const listed = phones.filter((_, i) => i % 10 === 3)
        // Listed in national form: matched however the CSV writes the number.
        expect(yield* (yield* DoNotCall).add(setup.principal, { phone_numbers: listed.map((p) => p.slice(2)), country_code: "US", reason: null }).pipe(Effect.orDie))
          .toEqual({ added: 10, already_listed: 0 })
        const campaigns = yield* Campaigns
        const created = yield* campaigns.create(setup.principal, {
          name: "DNC",
          workflow_id: setup.agent.id,
          source_type: "csv",
          source_id: yield* uploadCsv(setup.principal, csvOf(phones)),
          max_concurrency: 20
        } as CreateCampaignRequest).pipe(Effect.orDie)
        yield* campaigns.start(setup.principal, created.id).pipe(Effect.orDie)
        const done = yield* advanceUntil(setup.principal, created.id, ["completed"], { stepMillis: 1000 })
        expect(done).toMatchObject({ processed_rows: 100, skipped_rows: 10, failed_rows: 0, executed_count: 90 })
        const sql = yield* SqlClient.SqlClient
        const dialed = yield* sql<{ to_number: string }>`SELECT to_number FROM call_attempts WHERE campaign_id = ${created.id}`.pipe(Effect.orDie)
        expect(dialed.length).toBe(90)
        const blocked = new Set(listed)
        expect(dialed.some((r) => blocked.has(r.to_number))).toBe(false)
        const skipped = (yield* attemptsPerContact(created.id)).filter((c) => c.state === "skipped")
        expect(skipped.map((c) => c.phone_number)).toEqual(listed)
        expect(skipped.every((c) => c.attempts === 0 && c.last_outcome === "do_not_call")).toBe(true)
      }))
  })
}
