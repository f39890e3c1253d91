/**
 * The campaign service's rules: state operations follow the transition table (a refused one names the
 * state it found), settings change only in draft or paused, another organization's campaign does not
 * exist, every change is logged; redial copies a completed campaign's unreached contacts, by outcome,
 * into one linked draft. The wire (statuses, 422 bodies, the list's paging) is `http/test/Campaigns.test.ts`.
 */
import { CreateCampaignRequest, RedialRequest, UpdateCampaignRequest } from "@agentline/api/campaigns/Campaign"
import { expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { advanceUntil, Campaigns, csvOf, numbers, setupDialing, uploadCsv } from "../DispatchHarness.js"
import { dialects, seedOrganization, TestServices } from "../Harness.js"
import { requestedBy } from "../../src/campaigns/Campaigns.js"

const createRequest = (input: typeof CreateCampaignRequest.Encoded) => Schema.decodeSync(CreateCampaignRequest)(input)
const updateRequest = (input: typeof UpdateCampaignRequest.Encoded) => Schema.decodeSync(UpdateCampaignRequest)(input)
const redialRequest = (input: typeof RedialRequest.Encoded) => Schema.decodeSync(RedialRequest)(input)

for (const dialect of dialects) {
  layer(TestServices(dialect), { timeout: "60 seconds" })(`Campaigns [${dialect}]`, (it) => {
    it.effect("state operations follow the transition table; settings change only in draft or paused; each change is logged", () =>
      Effect.gen(function*() {
        const campaigns = yield* Campaigns
        const setup = yield* setupDialing({ simulator: { talk_seconds: 600 } })
        const key = yield* uploadCsv(setup.principal, csvOf(numbers(3, "+1646556")))
        const { id } = yield* campaigns.create(setup.principal, createRequest({ name: "States", workflow_id: setup.agent.id, source_type: "csv", source_id: key }))
        const refused = <E>(operation: Effect.Effect<unknown, E>) => Effect.flip(operation)

        expect(yield* campaigns.update(setup.principal, id, updateRequest({ name: "Renamed", max_concurrency: 2 }))).toMatchObject({ name: "Renamed", max_concurrency: 2 })
        for (const operation of [campaigns.pause, campaigns.resume]) {
          expect(yield* refused(operation(setup.principal, id))).toMatchObject({ _tag: "InvalidTransition", from: "draft" })
        }
        expect((yield* campaigns.start(setup.principal, id)).state).toBe("running")
        expect(yield* refused(campaigns.start(setup.principal, id))).toMatchObject({ _tag: "InvalidTransition", from: "running", action: "start" })
        expect(yield* refused(campaigns.update(setup.principal, id, updateRequest({ name: "no" })))).toMatchObject({ _tag: "InvalidTransition", from: "running" })
        expect((yield* campaigns.pause(setup.principal, id)).state).toBe("paused")
        expect((yield* campaigns.update(setup.principal, id, updateRequest({ retry_config: { max_retries: 0 } }))).retry_config.max_retries).toBe(0)
        expect((yield* campaigns.resume(setup.principal, id)).state).toBe("running")
        expect((yield* campaigns.cancel(setup.principal, id)).state).toBe("canceled")
        for (const operation of [campaigns.start, campaigns.pause, campaigns.resume, campaigns.cancel]) {
          expect(yield* refused(operation(setup.principal, id))).toMatchObject({ _tag: "InvalidTransition", from: "canceled" })
        }
        expect(yield* refused(campaigns.redial(setup.principal, id, redialRequest({})))).toMatchObject({ _tag: "InvalidTransition", from: "canceled", action: "redial" })
        expect((yield* campaigns.get(setup.principal, id)).logs.map((l) => l.event)).toEqual(
          ["campaign_created", "campaign_started", "campaign_paused", "campaign_resumed", "campaign_canceled"]
        )
        // The log names who asked (not "through the API": the dashboard asks as its signed-in user).
        const started = (yield* campaigns.get(setup.principal, id)).logs.find((l) => l.event === "campaign_started")!
        expect(started.message).toBe(`Start requested ${requestedBy(setup.principal)} (was draft)`)
        expect(started.message).not.toContain("through the API")
        expect(requestedBy({ email: "ada@example.com", via: { _tag: "Session", sessionId: 1, mustChangePassword: false } })).toBe("by ada@example.com")
        expect(requestedBy({ email: "ada@example.com", via: { _tag: "ApiKey", apiKeyId: 2 } })).toBe("by ada@example.com with an API key")
        const other = yield* seedOrganization()
        expect(yield* refused(campaigns.get(other.principal, id))).toMatchObject({ _tag: "CampaignNotFound" })
        expect(yield* refused(campaigns.start(other.principal, id))).toMatchObject({ _tag: "CampaignNotFound" })
      }))

    it.effect("redial copies a completed campaign's unreached contacts by outcome into one linked draft", () =>
      Effect.gen(function*() {
        const campaigns = yield* Campaigns
        const phones = numbers(4, "+1646557")
        const setup = yield* setupDialing({
          simulator: {
            ring_seconds: 0,
            talk_seconds: 0,
            rules: [
              { match: "exact", pattern: phones[0]!, outcomes: ["busy"] },
              { match: "exact", pattern: phones[1]!, outcomes: ["voicemail"] },
              { match: "exact", pattern: phones[2]!, outcomes: ["failed"] }
            ]
          }
        })
        const key = yield* uploadCsv(setup.principal, csvOf(phones))
        const parent = yield* campaigns.create(setup.principal, createRequest({ name: "Parent", workflow_id: setup.agent.id, source_type: "csv", source_id: key, retry_config: { enabled: false } }))
        yield* campaigns.start(setup.principal, parent.id)
        yield* advanceUntil(setup.principal, parent.id, ["completed"])
        // Voicemail left out: only the busy contact is called again (failed and completed never are).
        const child = yield* campaigns.redial(setup.principal, parent.id, redialRequest({ retry_on_voicemail: false }))
        expect(child).toMatchObject({ state: "draft", parent_campaign_id: parent.id, total_rows: 1, name: "Parent (Redial)" })
        expect((yield* campaigns.get(setup.principal, parent.id)).redialed_campaign_id).toBe(child.id)
        expect(yield* Effect.flip(campaigns.redial(setup.principal, parent.id, redialRequest({})))).toMatchObject({ _tag: "CampaignAlreadyRedialed" })

        const other = yield* campaigns.create(setup.principal, createRequest({ name: "All reached", workflow_id: setup.agent.id, source_type: "csv", source_id: yield* uploadCsv(setup.principal, csvOf([phones[3]!])) }))
        yield* campaigns.start(setup.principal, other.id)
        yield* advanceUntil(setup.principal, other.id, ["completed"])
        expect(yield* Effect.flip(campaigns.redial(setup.principal, other.id, redialRequest({})))).toMatchObject({ _tag: "NothingToRedial" })
      }))
  })
}
