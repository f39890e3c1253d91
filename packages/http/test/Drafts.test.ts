/**
 * Drafts and publishing (docs/agents.md), on SQLite and PostgreSQL: a save is a draft, publishing makes
 * it what production runs; create-draft and validate in the reference's shapes; which version each kind
 * of call runs (campaigns, API triggers and the uuid route the published one; test calls and the
 * `/public/agent/test/...` routes the latest draft); trigger paths follow both versions.
 */
import { RunsPage } from "@agentline/api/runs/Run"
import { WorkflowVersion } from "@agentline/api/workflows/Workflow"
import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { advanceUntil, Campaigns, csvOf, plainDefinition, settle, setupDialing, uploadCsv } from "./DispatchHarness.js"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"
import { createRecording, toneWav } from "./RecordingFixtures.js"
import { campaignRequest, decode, listOf } from "./Wire.js"

/** The plain two-node agent with `greeting` on its start node, plus an API trigger when `trigger` is given. */
const agentDefinition = (greeting: string, trigger?: string) => {
  const plain = plainDefinition()
  return {
    nodes: [
      { ...plain.nodes[0]!, data: { ...plain.nodes[0]!.data, greeting } },
      plain.nodes[1]!,
      ...(trigger !== undefined ? [{ id: "api", type: "trigger", position: { x: 100, y: 0 }, data: { name: "API", trigger_path: trigger } }] : [])
    ],
    edges: plain.edges
  }
}

const uniquePath = (name: string) => `${name}-${Math.random().toString(36).slice(2, 10)}`

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`Drafts and publishing [${dialect}]`, (it) => {
    it.effect("a save is a draft; GET shows it; publish archives the published version; publishing twice is 400", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const created = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: org.apiKey,
          body: { name: "Agent", workflow_definition: agentDefinition("Hello one") }
        })
        expect(created.body).toMatchObject({ version_number: 1, version_status: "published" })
        const id = created.body.id
        const v1 = created.body.current_definition_id
        const put = (body: unknown) => call("PUT", `/api/v1/workflow/${id}`, { apiKey: org.apiKey, body })

        const draft = yield* put({ workflow_definition: agentDefinition("Hello two") })
        expect(draft.status).toBe(200)
        // The draft's content and number; the published version is still version 1.
        expect(draft.body).toMatchObject({ version_number: 2, version_status: "draft", current_definition_id: v1 })
        expect(draft.body.workflow_definition.nodes[0].data.greeting).toBe("Hello two")
        const fetched = yield* call("GET", `/api/v1/workflow/fetch/${id}`, { apiKey: org.apiKey })
        expect(fetched.body).toMatchObject({ version_number: 2, version_status: "draft", current_definition_id: v1 })

        // A second save replaces the draft: the first draft is archived, never published.
        const second = yield* put({ workflow_definition: agentDefinition("Hello three"), template_context_variables: { who: "there" } })
        expect(second.body).toMatchObject({ version_number: 3, version_status: "draft", current_definition_id: v1 })
        const versions = () => Effect.map(call("GET", `/api/v1/workflow/${id}/versions`, { apiKey: org.apiKey }), (r) => listOf(WorkflowVersion, r.body))
        expect((yield* versions()).map((v) => [v.version_number, v.status, v.published_at === null])).toEqual([
          [3, "draft", true],
          [2, "archived", true],
          [1, "published", false]
        ])
        // A rename alone changes neither the draft nor the published version.
        expect((yield* put({ name: "Renamed" })).body).toMatchObject({ name: "Renamed", version_number: 3, version_status: "draft" })

        const published = yield* call("POST", `/api/v1/workflow/${id}/publish`, { apiKey: org.apiKey })
        expect(published.status).toBe(200)
        expect(published.body).toEqual({ id: expect.any(Number), version_number: 3, status: "published", published_at: expect.any(String) })
        const listed = yield* versions()
        expect(listed.map((v) => [v.version_number, v.status])).toEqual([[3, "published"], [2, "archived"], [1, "archived"]])
        expect(listed[0].id).toBe(published.body.id)
        expect(listed[0].published_at).toBe(published.body.published_at)
        const after = yield* call("GET", `/api/v1/workflow/fetch/${id}`, { apiKey: org.apiKey })
        expect(after.body).toMatchObject({ version_number: 3, version_status: "published", current_definition_id: published.body.id })
        expect(after.body.template_context_variables).toEqual({ who: "there" })

        const again = yield* call("POST", `/api/v1/workflow/${id}/publish`, { apiKey: org.apiKey })
        expect(again.status).toBe(400)
        expect(again.body.detail).toMatch(/^No draft to publish/)
        // An unchanged save makes no draft.
        expect((yield* put({ workflow_definition: after.body.workflow_definition })).body).toMatchObject({ version_number: 3, version_status: "published" })

        // Another organization's agent is 404 for every version operation.
        const other = yield* seedOrganization()
        for (const path of ["publish", "create-draft", "validate"]) {
          expect((yield* call("POST", `/api/v1/workflow/${id}/${path}`, { apiKey: other.apiKey })).status).toBe(404)
        }
        expect((yield* call("POST", `/api/v1/workflow/999999/publish`, { apiKey: org.apiKey })).status).toBe(404)
      }))

    it.effect("create-draft copies the published version once; validate answers the reference's shapes; publish refuses an invalid draft with 422", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const greeting = yield* createRecording(org.apiKey, toneWav({ sampleRate: 8000, channels: 1, seconds: 0.2 }), "Hello!")
        const created = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: org.apiKey,
          body: { name: "Agent", workflow_definition: agentDefinition("Hi"), workflow_configurations: { max_call_duration: 600 } }
        })
        const id = created.body.id

        const valid = yield* call("POST", `/api/v1/workflow/${id}/validate`, { apiKey: org.apiKey })
        expect(valid).toEqual({ status: 200, body: { is_valid: true, errors: [] } })

        const draft = yield* call("POST", `/api/v1/workflow/${id}/create-draft`, { apiKey: org.apiKey })
        expect(draft.status).toBe(200)
        expect(draft.body).toMatchObject({
          version_number: 2,
          status: "draft",
          published_at: null,
          workflow_configurations: { max_call_duration: 600 },
          workflow_definition: created.body.workflow_definition
        })
        const same = yield* call("POST", `/api/v1/workflow/${id}/create-draft`, { apiKey: org.apiKey })
        expect(same.body.id).toBe(draft.body.id)

        // A draft that plays a recording, then the recording is deleted: the draft can no longer be published.
        const playing = agentDefinition("Hi")
        ;(playing.nodes[0]!.data as Record<string, unknown>).greeting_type = "audio"
        ;(playing.nodes[0]!.data as Record<string, unknown>).greeting_recording_id = greeting.recording_id
        const saved = yield* call("PUT", `/api/v1/workflow/${id}`, { apiKey: org.apiKey, body: { workflow_definition: playing } })
        expect(saved.body).toMatchObject({ version_number: 3, version_status: "draft" })
        expect((yield* call("DELETE", `/api/v1/workflow-recordings/${greeting.recording_id}`, { apiKey: org.apiKey })).status).toBe(200)

        const invalid = yield* call("POST", `/api/v1/workflow/${id}/validate`, { apiKey: org.apiKey })
        expect(invalid.status).toBe(422)
        expect(invalid.body).toEqual({
          detail: {
            is_valid: false,
            errors: [{ kind: "node", id: "start", field: "greeting_recording_id", message: expect.stringContaining(greeting.recording_id) }]
          }
        })
        const refused = yield* call("POST", `/api/v1/workflow/${id}/publish`, { apiKey: org.apiKey })
        expect(refused.status).toBe(422)
        expect(refused.body).toEqual(invalid.body)
        // Nothing was published.
        const versions = yield* call("GET", `/api/v1/workflow/${id}/versions`, { apiKey: org.apiKey })
        expect(listOf(WorkflowVersion, versions.body).map((v) => [v.version_number, v.status])).toEqual([[3, "draft"], [2, "archived"], [1, "published"]])
      }))

    it.effect("production routes run the published version, test routes and test calls the draft; trigger paths follow both versions", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing({ simulator: { talk_seconds: 1 } })
        const publishedPath = uniquePath("pub")
        const draftPath = uniquePath("draft")
        const created = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: setup.apiKey,
          body: { name: "Routed", workflow_definition: agentDefinition("Published hello", publishedPath) }
        })
        const id = created.body.id
        const uuid = created.body.workflow_uuid
        const publishedId = created.body.current_definition_id
        // The draft moves the trigger to another path and has template variables.
        const draft = yield* call("PUT", `/api/v1/workflow/${id}`, {
          apiKey: setup.apiKey,
          body: { workflow_definition: agentDefinition("Draft hello", draftPath), template_context_variables: { first_name: "Default" } }
        })
        const draftId = (yield* call("GET", `/api/v1/workflow/${id}/versions`, { apiKey: setup.apiKey })).body[0].id
        expect(draft.body.version_status).toBe("draft")

        const place = (path: string, phone: string) =>
          Effect.map(call("POST", path, { apiKey: setup.apiKey, body: { phone_number: phone, initial_context: { city: "Paris" } } }), (r) => {
            expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200)
            return r.body.workflow_run_id as number
          })
        const runs = {
          byUuid: yield* place(`/api/v1/public/agent/workflow/${uuid}`, "+14155550101"),
          byPublishedTrigger: yield* place(`/api/v1/public/agent/${publishedPath}`, "+14155550102"),
          testByUuid: yield* place(`/api/v1/public/agent/test/workflow/${uuid}`, "+14155550103"),
          testByDraftTrigger: yield* place(`/api/v1/public/agent/test/${draftPath}`, "+14155550104"),
          testCall: yield* Effect.map(
            call("POST", "/api/v1/telephony/initiate-call", { apiKey: setup.apiKey, body: { workflow_id: id, phone_number: "+14155550105" } }),
            (r) => r.body.workflow_run_id as number
          )
        }
        // The draft's trigger is not in the published version, and the published one not in the draft.
        const draftTriggerInProduction = yield* call("POST", `/api/v1/public/agent/${draftPath}`, { apiKey: setup.apiKey, body: { phone_number: "+14155550106" } })
        expect(draftTriggerInProduction.status).toBe(404)
        const publishedTriggerInTest = yield* call("POST", `/api/v1/public/agent/test/${publishedPath}`, { apiKey: setup.apiKey, body: { phone_number: "+14155550107" } })
        expect(publishedTriggerInTest.status).toBe(404)

        const run = (runId: number) => Effect.map(call("GET", `/api/v1/workflow/${id}/runs/${runId}`, { apiKey: setup.apiKey }), (r) => r.body)
        for (const runId of [runs.byUuid, runs.byPublishedTrigger]) {
          const production = yield* run(runId)
          expect(production.definition_id).toBe(publishedId)
          expect(production.initial_context).toMatchObject({ trigger_mode: "production", city: "Paris" })
          expect(production.initial_context.first_name).toBeUndefined()
        }
        for (const runId of [runs.testByUuid, runs.testByDraftTrigger, runs.testCall]) {
          const test = yield* run(runId)
          expect(test.definition_id).toBe(draftId)
          // Test runs get the agent's template variables as defaults.
          expect(test.initial_context).toMatchObject({ trigger_mode: "test", first_name: "Default" })
        }

        // Published: the draft's path now works in production, and the old path is retired.
        expect((yield* call("POST", `/api/v1/workflow/${id}/publish`, { apiKey: setup.apiKey })).status).toBe(200)
        const nowProduction = yield* place(`/api/v1/public/agent/${draftPath}`, "+14155550108")
        expect((yield* run(nowProduction)).definition_id).toBe(draftId)
        const retired = yield* call("POST", `/api/v1/public/agent/${publishedPath}`, { apiKey: setup.apiKey, body: { phone_number: "+14155550109" } })
        expect(retired.status).toBe(404)
        // The retired path still belongs to this agent: another agent cannot take it.
        const taken = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: setup.apiKey,
          body: { name: "Thief", workflow_definition: agentDefinition("Hi", publishedPath) }
        })
        expect(taken.status).toBe(409)
        for (let i = 0; i < 10; i++) {
          yield* TestClock.adjust(1000)
          yield* settle(5)
        }
      }))

    it.effect("a campaign's calls run the published version while a draft is edited, and the next version once it is published", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing({ limit: 1, simulator: { ring_seconds: 1, talk_seconds: 2 } })
        const campaigns = yield* Campaigns
        const id = setup.agent.id
        const publishedId = setup.agent.current_definition_id
        const sourceId = yield* uploadCsv(setup.principal, csvOf(["+14155550201", "+14155550202", "+14155550203"]))
        const campaign = yield* campaigns.create(setup.principal, campaignRequest({
          name: "Drafts meanwhile",
          workflow_id: id,
          source_type: "csv",
          source_id: sourceId,
          max_concurrency: 1
        })).pipe(Effect.orDie)
        yield* campaigns.start(setup.principal, campaign.id).pipe(Effect.orDie)
        // Edited while the campaign runs: a draft, which the campaign does not call.
        const draft = yield* call("PUT", `/api/v1/workflow/${id}`, {
          apiKey: setup.apiKey,
          body: { workflow_definition: agentDefinition("A draft greeting") }
        })
        expect(draft.body.version_status).toBe("draft")
        const done = yield* advanceUntil(setup.principal, campaign.id, ["completed"])
        expect(done.processed_rows).toBe(3)
        const runs = yield* call("GET", `/api/v1/campaign/${campaign.id}/runs?limit=100`, { apiKey: setup.apiKey })
        expect(decode(RunsPage, runs.body).runs.map((r) => r.definition_id)).toEqual([publishedId, publishedId, publishedId])

        // Published: a new campaign's calls run it.
        const published = yield* call("POST", `/api/v1/workflow/${id}/publish`, { apiKey: setup.apiKey })
        const nextSource = yield* uploadCsv(setup.principal, csvOf(["+14155550204"]))
        const next = yield* campaigns.create(setup.principal, campaignRequest({ name: "After publish", workflow_id: id, source_type: "csv", source_id: nextSource }))
          .pipe(Effect.orDie)
        yield* campaigns.start(setup.principal, next.id).pipe(Effect.orDie)
        yield* advanceUntil(setup.principal, next.id, ["completed"])
        const nextRuns = yield* call("GET", `/api/v1/campaign/${next.id}/runs?limit=100`, { apiKey: setup.apiKey })
        expect(decode(RunsPage, nextRuns.body).runs.map((r) => r.definition_id)).toEqual([published.body.id])
      }))
  })
}
