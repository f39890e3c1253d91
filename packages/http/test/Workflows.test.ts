import { DefinitionId, OrganizationId, WorkflowId } from "@agentline/api/Ids"
import { BlobStore } from "@agentline/core/blobs/BlobStore"
import { Runs } from "@agentline/core/runs/Runs"
import { triggerPaths, WorkflowDefinition } from "@agentline/core/workflows/WorkflowDefinition"
import { RunsPage } from "@agentline/api/runs/Run"
import { WorkflowVersion } from "@agentline/api/workflows/Workflow"
import { expect, layer } from "@effect/vitest"
import { Clock, Effect, Stream } from "effect"
import { definition } from "./fixtures.js"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"
import { decode, idsOf, issuesOf, listOf } from "./Wire.js"

const createAgent = (apiKey: string, name = "Agent", def: unknown = definition()) =>
  Effect.map(call("POST", "/api/v1/workflow/create/definition", { apiKey, body: { name, workflow_definition: def } }), (r) => {
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    return r.body
  })

const insertRun = (organizationId: number, workflowId: number, definitionId: number, name = "WR-TEST") =>
  Effect.gen(function*() {
    const runs = yield* Runs
    return yield* runs.insert({
      organization_id: OrganizationId.make(organizationId),
      workflow_id: WorkflowId.make(workflowId),
      campaign_id: null,
      definition_id: DefinitionId.make(definitionId),
      name,
      mode: "simulator",
      call_type: "outbound",
      initial_context: { phone_number: "+14155550100" },
      gathered_context: null,
      logs: null,
      now: new Date(yield* Clock.currentTimeMillis).toISOString()
    })
  })

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "60 seconds" })(`Workflows and runs [${dialect}]`, (it) => {
    it.effect("create returns the full agent as version 1, published, with a stable uuid and a minted trigger path", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const agent = yield* createAgent(org.apiKey)
        expect(agent).toMatchObject({ name: "Agent", status: "active", version_number: 1, version_status: "published", total_runs: 0 })
        expect(agent.workflow_uuid).toMatch(/^[0-9a-f-]{36}$/)
        expect(typeof agent.current_definition_id).toBe("number")
        const [triggerPath] = triggerPaths(decode(WorkflowDefinition, agent.workflow_definition))
        expect(triggerPath).toMatch(/^[A-Za-z0-9_-]{1,36}$/)
        expect(triggerPath).not.toBe(agent.workflow_uuid)
        expect(agent.workflow_definition.viewport).toEqual({ x: 0, y: 0, zoom: 1 })
      }))

    it.effect("two updates make two drafts, published together; earlier versions stay intact and runs keep their definition_id", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const agent = yield* createAgent(org.apiKey)
        const run = yield* insertRun(org.admin.organization_id, agent.id, agent.current_definition_id)

        const v2 = yield* call("PUT", `/api/v1/workflow/${agent.id}`, {
          apiKey: org.apiKey,
          body: { workflow_definition: definition(undefined, "Hi {{first_name}}") }
        })
        expect(v2.status).toBe(200)
        expect(v2.body).toMatchObject({ version_number: 2, version_status: "draft", current_definition_id: agent.current_definition_id })
        const v3 = yield* call("PUT", `/api/v1/workflow/${agent.id}`, {
          apiKey: org.apiKey,
          body: { name: "Renamed", template_context_variables: { first_name: "there" } }
        })
        expect(v3.body).toMatchObject({ version_number: 3, version_status: "draft", name: "Renamed" })
        expect(v3.body.template_context_variables).toEqual({ first_name: "there" })
        // The second draft builds on the first: its definition is the first draft's.
        expect(v3.body.workflow_definition.nodes[0].data.greeting).toBe("Hi {{first_name}}")

        const renameOnly = yield* call("PUT", `/api/v1/workflow/${agent.id}`, { apiKey: org.apiKey, body: { name: "Again" } })
        expect(renameOnly.body.version_number).toBe(3)
        const published = yield* call("POST", `/api/v1/workflow/${agent.id}/publish`, { apiKey: org.apiKey })
        expect(published.body).toMatchObject({ version_number: 3, status: "published" })

        const versions = yield* call("GET", `/api/v1/workflow/${agent.id}/versions`, { apiKey: org.apiKey })
        expect(listOf(WorkflowVersion, versions.body).map((v) => [v.version_number, v.status])).toEqual([[3, "published"], [2, "archived"], [1, "archived"]])
        expect(versions.body[2].workflow_definition.nodes[0].data.greeting).toBe("Hello {{first_name}}")
        expect(versions.body[2].id).toBe(agent.current_definition_id)
        expect(new Set(idsOf(versions.body)).size).toBe(3)

        const fetched = yield* call("GET", `/api/v1/workflow/${agent.id}/runs/${run.id}`, { apiKey: org.apiKey })
        expect(fetched.status).toBe(200)
        expect(fetched.body.definition_id).toBe(agent.current_definition_id)
        const listed = yield* call("GET", `/api/v1/workflow/fetch/${agent.id}`, { apiKey: org.apiKey })
        expect(listed.body).toMatchObject({ total_runs: 1, current_definition_id: published.body.id, version_status: "published" })
      }))

    it.effect("archive and restore; an invalid status is 422; the list filters by status", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const agent = yield* createAgent(org.apiKey)
        const archived = yield* call("PUT", `/api/v1/workflow/${agent.id}/status`, { apiKey: org.apiKey, body: { status: "archived" } })
        expect(archived.body.status).toBe("archived")
        expect(archived.body.workflow_definition.nodes.length).toBe(4)
        const onlyActive = yield* call("GET", "/api/v1/workflow/fetch?status=active", { apiKey: org.apiKey })
        expect(idsOf(onlyActive.body)).not.toContain(agent.id)
        const onlyArchived = yield* call("GET", "/api/v1/workflow/fetch?status=archived", { apiKey: org.apiKey })
        expect(onlyArchived.body).toEqual([expect.objectContaining({ id: agent.id, status: "archived", total_runs: 0, workflow_uuid: agent.workflow_uuid })])
        const bad = yield* call("PUT", `/api/v1/workflow/${agent.id}/status`, { apiKey: org.apiKey, body: { status: "deleted" } })
        expect(bad.status).toBe(422)
        expect(bad.body.detail[0].loc).toEqual(["body", "status"])
        const badFilter = yield* call("GET", "/api/v1/workflow/fetch?status=gone", { apiKey: org.apiKey })
        expect(badFilter.status).toBe(422)
        const restored = yield* call("PUT", `/api/v1/workflow/${agent.id}/status`, { apiKey: org.apiKey, body: { status: "active" } })
        expect(restored.body.status).toBe("active")
      }))

    it.effect("trigger paths are unique across all organizations (409)", () =>
      Effect.gen(function*() {
        const a = yield* seedOrganization()
        const b = yield* seedOrganization()
        const path = `shared-${Math.random().toString(36).slice(2, 10)}`
        yield* createAgent(a.apiKey, "A", definition(path))
        const conflict = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: b.apiKey,
          body: { name: "B", workflow_definition: definition(path) }
        })
        expect(conflict.status).toBe(409)
        expect(conflict.body.detail).toContain(path)
        const own = yield* createAgent(b.apiKey, "B2")
        const stealByUpdate = yield* call("PUT", `/api/v1/workflow/${own.id}`, {
          apiKey: b.apiKey,
          body: { workflow_definition: definition(path) }
        })
        expect(stealByUpdate.status).toBe(409)
        const unchanged = yield* call("GET", `/api/v1/workflow/fetch/${own.id}`, { apiKey: b.apiKey })
        expect(unchanged.body.version_number).toBe(1)
      }))

    it.effect("structural problems are 422 listing each with kind, id and field", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const broken = definition()
        broken.edges.push({ id: "e3", source: "agent", target: "nowhere", data: { label: "x", condition: "y" } })
        broken.nodes[1]!.data.name = ""
        const reply = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: org.apiKey,
          body: { name: "Broken", workflow_definition: broken }
        })
        expect(reply.status).toBe(422)
        expect(reply.body.detail.length).toBeGreaterThanOrEqual(2)
        for (const item of reply.body.detail) {
          expect(item).toHaveProperty("loc")
          expect(item).toHaveProperty("msg")
          expect(["node", "edge", "workflow"]).toContain(item.kind)
        }
        expect(issuesOf(reply.body).some((d) => d.kind === "edge" && d.id === "e3")).toBe(true)
        expect(issuesOf(reply.body).some((d) => d.kind === "node" && d.id === "agent" && d.field === "name")).toBe(true)
        const missing = yield* call("POST", "/api/v1/workflow/create/definition", { apiKey: org.apiKey, body: { workflow_definition: {} } })
        expect(missing.status).toBe(422)
        expect(missing.body.detail[0].loc).toEqual(["body", "name"])
      }))

    it.effect("another organization's agents and runs are 404", () =>
      Effect.gen(function*() {
        const a = yield* seedOrganization()
        const b = yield* seedOrganization()
        const agent = yield* createAgent(a.apiKey)
        const run = yield* insertRun(a.admin.organization_id, agent.id, agent.current_definition_id)
        for (
          const [method, path, body] of [
            ["GET", `/api/v1/workflow/fetch/${agent.id}`, undefined],
            ["PUT", `/api/v1/workflow/${agent.id}`, { name: "x" }],
            ["PUT", `/api/v1/workflow/${agent.id}/status`, { status: "archived" }],
            ["GET", `/api/v1/workflow/${agent.id}/versions`, undefined],
            ["GET", `/api/v1/workflow/${agent.id}/runs`, undefined],
            ["GET", `/api/v1/workflow/${agent.id}/runs/${run.id}`, undefined]
          ] as const
        ) {
          const reply = yield* call(method, path, { apiKey: b.apiKey, ...(body ? { body } : {}) })
          expect(reply.status, `${method} ${path}`).toBe(404)
        }
        const listB = yield* call("GET", "/api/v1/workflow/fetch", { apiKey: b.apiKey })
        expect(idsOf(listB.body)).not.toContain(agent.id)
      }))

    it.effect("runs are paginated per agent and a run must belong to the agent in the path", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const agent = yield* createAgent(org.apiKey, "One")
        const other = yield* createAgent(org.apiKey, "Two")
        const ids: Array<number> = []
        for (let i = 0; i < 3; i++) ids.push((yield* insertRun(org.admin.organization_id, agent.id, agent.current_definition_id, `WR-${i}`)).id)
        const page1 = yield* call("GET", `/api/v1/workflow/${agent.id}/runs?page=1&limit=2`, { apiKey: org.apiKey })
        expect(page1.body).toMatchObject({ total_count: 3, page: 1, limit: 2, total_pages: 2 })
        expect(decode(RunsPage, page1.body).runs.map((r) => r.id)).toEqual([ids[2], ids[1]])
        const page2 = yield* call("GET", `/api/v1/workflow/${agent.id}/runs?page=2&limit=2`, { apiKey: org.apiKey })
        expect(decode(RunsPage, page2.body).runs.map((r) => r.id)).toEqual([ids[0]])
        const tooMany = yield* call("GET", `/api/v1/workflow/${agent.id}/runs?limit=101`, { apiKey: org.apiKey })
        expect(tooMany.status).toBe(422)
        const wrongAgent = yield* call("GET", `/api/v1/workflow/${other.id}/runs/${ids[0]}`, { apiKey: org.apiKey })
        expect(wrongAgent.status).toBe(404)
        const run = yield* call("GET", `/api/v1/workflow/${agent.id}/runs/${ids[0]}`, { apiKey: org.apiKey })
        expect(Object.keys(run.body).sort()).toEqual([
          "annotations", "bot_recording_public_url", "bot_recording_url", "call_type", "cost_info", "created_at",
          "definition_id", "gathered_context", "id", "initial_context", "is_completed", "logs", "mode", "name",
          "public_access_token", "recording_public_url", "recording_url", "transcript_public_url", "transcript_url",
          "usage_info", "user_recording_public_url", "user_recording_url", "workflow_id"
        ])
        expect(run.body.transcript_public_url).toBeNull()
      }))

    it.effect("artifacts are served by signed public links; a tampered link is 404", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const agent = yield* createAgent(org.apiKey)
        const stored = yield* insertRun(org.admin.organization_id, agent.id, agent.current_definition_id)
        const blobs = yield* BlobStore
        const key = `${org.admin.organization_id}/runs/${stored.id}/transcript.txt`
        yield* blobs.put(key, Stream.make(new TextEncoder().encode("[00:00] user: hello\n")), { maxBytes: 1000 })
        const runs = yield* Runs
        yield* runs.update(stored.id, { artifacts: { transcript: key } }, new Date().toISOString())
        const run = yield* call("GET", `/api/v1/workflow/${agent.id}/runs/${stored.id}`, { apiKey: org.apiKey })
        expect(run.body.public_access_token).toBeTypeOf("string")
        expect(run.body.recording_public_url).toBeNull()
        const url = new URL(run.body.transcript_public_url)
        const download = yield* call("GET", url.pathname)
        expect(download).toEqual({ status: 200, body: "[00:00] user: hello\n" })
        const tampered = url.pathname.replace(`/${stored.id}.`, `/${stored.id + 1}.`)
        expect((yield* call("GET", tampered)).status).toBe(404)
        const noRecording = yield* call("GET", url.pathname.replace("/transcript", "/recording"))
        expect(noRecording.status).toBe(404)
        const badArtifact = yield* call("GET", url.pathname.replace("/transcript", "/video"))
        expect(badArtifact.status).toBe(422)
      }))
  })
}
