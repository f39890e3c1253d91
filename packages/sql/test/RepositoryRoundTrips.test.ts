/**
 * What a repository writes it reads back exactly, on both dialects: booleans (0/1 on SQLite), JSON
 * (text on SQLite, JSONB with its own key order on PostgreSQL), nulls, timestamps and counts all come
 * back as the domain types, through the row schemas.
 */
import { ApiKeysRepo } from "@agentline/core/api-keys/ApiKeysRepo"
import { OrganizationsRepo } from "@agentline/core/organizations/OrganizationsRepo"
import { PhoneNumbersRepo } from "@agentline/core/phone-numbers/PhoneNumbersRepo"
import { RunsRepo } from "@agentline/core/runs/RunsRepo"
import { TelephonyConfigsRepo } from "@agentline/core/telephony/TelephonyConfigsRepo"
import { UploadsRepo } from "@agentline/core/uploads/UploadsRepo"
import { UsersRepo } from "@agentline/core/users/UsersRepo"
import { WorkflowsRepo } from "@agentline/core/workflows/WorkflowsRepo"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Either, Layer, Option } from "effect"
import { Repositories, Testing } from "../src/index.js"

const t0 = "2026-03-01T10:00:00.000Z"
const t1 = "2026-03-01T10:05:30.250Z"
/** Nested, unicode, numbers, booleans, nulls and keys whose order JSONB would change. */
const document = { zeta: 1, alpha: { "ümlaut": "naïve ☎", list: [1, 2.5, true, null, { b: 2, a: 1 }] }, empty: {} }

const seed = Effect.gen(function*() {
  const organizations = yield* OrganizationsRepo
  const users = yield* UsersRepo
  const organization = yield* organizations.findOrCreate(`org-${Math.random().toString(36).slice(2)}`, t0)
  const user = Option.getOrThrow(yield* users.insert({
    organization_id: organization.id,
    email: `${Math.random().toString(36).slice(2)}@example.com`,
    password_hash: "hash",
    role: "admin",
    must_change_password: true,
    now: t0
  }))
  return { organization, user }
})

const definition = { nodes: [{ id: "start", type: "startCall", data: { name: "Start", prompt: "Hi" } }], edges: [] }

for (const dialect of Testing.dialects) {
  layer(Repositories.layer.pipe(Layer.provideMerge(Testing.layerDatabase(dialect))), { timeout: "60 seconds" })(
    `Repository round trips [${dialect}]`,
    (it) => {
      it.effect("organizations, users and sessions", () =>
        Effect.gen(function*() {
          const { organization, user } = yield* seed
          const organizations = yield* OrganizationsRepo
          const users = yield* UsersRepo
          expect(organization).toEqual({ id: organization.id, name: organization.name, concurrent_call_limit: 10, created_at: t0 })
          expect(yield* organizations.findOrCreate(organization.name, t1)).toEqual(organization)
          expect(Option.getOrThrow(yield* organizations.setConcurrentCallLimit(organization.id, 3)).concurrent_call_limit).toBe(3)
          expect(yield* organizations.findById(999_999)).toEqual(Option.none())

          expect(user).toMatchObject({ organization_id: organization.id, role: "admin", must_change_password: true, created_at: t0 })
          yield* users.setPassword(user.id, "new-hash", false, t1)
          expect(Option.getOrThrow(yield* users.findById(user.id))).toEqual({
            ...user,
            password_hash: "new-hash",
            must_change_password: false,
            updated_at: t1
          })
          expect(yield* users.insert({ ...user, password_hash: "x", now: t1 })).toEqual(Option.none())
          const session = yield* users.insertSession({ user_id: user.id, token_hash: `tok-${user.id}`, now: t0, expires_at: t1 })
          expect(session).toEqual({ id: session.id, user_id: user.id, token_hash: `tok-${user.id}`, expires_at: t1 })
          expect(yield* users.findSession(`tok-${user.id}`)).toEqual(Option.some(session))
        }))

      it.effect("api keys and uploads", () =>
        Effect.gen(function*() {
          const { organization, user } = yield* seed
          const keys = yield* ApiKeysRepo
          const key = yield* keys.insert({
            organization_id: organization.id,
            created_by: user.id,
            name: "ci ☎",
            key_hash: `hash-${user.id}`,
            key_prefix: "agl_1234",
            now: t0
          })
          expect(key).toEqual({
            id: key.id,
            name: "ci ☎",
            key_prefix: "agl_1234",
            is_active: true,
            created_at: t0,
            last_used_at: null,
            archived_at: null
          })
          yield* keys.touch(key.id, t1)
          expect(Option.getOrThrow(yield* keys.findByHash(`hash-${user.id}`))).toEqual({
            ...key,
            last_used_at: t1,
            organization_id: organization.id,
            created_by: user.id,
            key_hash: `hash-${user.id}`
          })
          const archived = Option.getOrThrow(yield* keys.setActive(organization.id, key.id, false, t1))
          expect([archived.is_active, archived.archived_at]).toEqual([false, t1])
          expect(yield* keys.list({ organizationId: organization.id, includeArchived: false })).toEqual([])

          const uploads = yield* UploadsRepo
          const fileKey = `${organization.id}/contacts/${key.id}`
          const reserved = { file_key: fileKey, organization_id: organization.id, file_name: "a.csv", declared_size: 10, content_type: "text/csv" }
          yield* uploads.reserve({ ...reserved, expires_at: t1, now: t0 })
          expect(yield* uploads.find(organization.id, fileKey)).toEqual(
            Option.some({ ...reserved, stored_size: null, expires_at: t1, uploaded_at: null })
          )
          yield* uploads.markUploaded(fileKey, 9, t1)
          expect(Option.getOrThrow(yield* uploads.find(organization.id, fileKey))).toMatchObject({ stored_size: 9, uploaded_at: t1 })
        }))

      it.effect("agents, versions and runs", () =>
        Effect.gen(function*() {
          const { organization } = yield* seed
          const workflows = yield* WorkflowsRepo
          const content = {
            workflow_definition: { ...definition, extra: document },
            template_context_variables: document,
            workflow_configurations: null,
            trigger_paths: [`path-${organization.id}`]
          }
          const created = Either.getOrThrow(yield* workflows.insert({
            organization_id: organization.id,
            workflow_uuid: `uuid-${organization.id}`,
            name: "Agent",
            content,
            now: t0
          }))
          expect(created).toMatchObject({
            organization_id: organization.id,
            name: "Agent",
            status: "active",
            created_at: t0,
            workflow_definition: content.workflow_definition,
            template_context_variables: document,
            call_disposition_codes: null,
            total_runs: 0,
            workflow_configurations: null,
            version_number: 1,
            version_status: "published",
            workflow_uuid: `uuid-${organization.id}`
          })
          expect(yield* workflows.findByTriggerPath(`path-${organization.id}`)).toEqual(Option.some(created))
          const updated = Option.getOrThrow(Either.getOrThrow(yield* workflows.update({
            organization_id: organization.id,
            id: created.id,
            name: undefined,
            content: { ...content, workflow_configurations: { max_call_duration: 600 } },
            now: t1
          })))
          // A save is a draft: the published version stays what production reads.
          expect([updated.version_number, updated.version_status, updated.workflow_configurations]).toEqual([2, "draft", { max_call_duration: 600 }])
          expect(updated.current_definition_id).toBe(created.definition_id)
          expect(Option.getOrThrow(yield* workflows.find(organization.id, created.id))).toMatchObject({
            definition_id: created.definition_id,
            version_status: "published",
            workflow_configurations: null
          })
          expect(Option.getOrThrow(yield* workflows.find(organization.id, created.id, "latest")).definition_id).toBe(updated.definition_id)
          // Asking for a draft when there is one gives that draft.
          expect(Option.getOrThrow(yield* workflows.createDraft(organization.id, created.id, t1)).id).toBe(updated.definition_id)
          // Publishing a draft that is no longer the draft does nothing.
          const stale = Option.getOrThrow(yield* workflows.publish({ organization_id: organization.id, id: created.id, draftId: created.definition_id, now: t1 }))
          expect(stale._tag).toBe("DraftReplaced")
          const published = Option.getOrThrow(yield* workflows.publish({ organization_id: organization.id, id: created.id, draftId: updated.definition_id, now: t1 }))
          expect(published).toMatchObject({ _tag: "Published", version: { id: updated.definition_id, status: "published", published_at: t1 } })
          expect(Option.getOrThrow(yield* workflows.publish({ organization_id: organization.id, id: created.id, draftId: updated.definition_id, now: t1 }))._tag)
            .toBe("NoDraft")
          expect(yield* workflows.publish({ organization_id: organization.id + 1000, id: created.id, draftId: updated.definition_id, now: t1 }))
            .toEqual(Option.none())
          const versions = yield* workflows.versions(organization.id, created.id)
          expect(versions.map((v) => [v.version_number, v.status, v.created_at, v.published_at])).toEqual([[2, "published", t1, t1], [1, "archived", t0, t0]])
          expect(versions[1]!.template_context_variables).toEqual(document)
          // A draft made from the published version copies it.
          const copy = Option.getOrThrow(yield* workflows.createDraft(organization.id, created.id, t1))
          expect(copy).toMatchObject({ version_number: 3, status: "draft", published_at: null, workflow_configurations: { max_call_duration: 600 } })
          yield* workflows.addDispositionCodes(created.id, ["sale", "callback"])
          yield* workflows.addDispositionCodes(created.id, ["sale"])
          expect(Option.getOrThrow(yield* workflows.find(organization.id, created.id)).call_disposition_codes).toEqual({
            disposition_codes: ["callback", "sale"]
          })

          const runs = yield* RunsRepo
          const run = yield* runs.insert({
            organization_id: organization.id,
            workflow_id: created.id,
            campaign_id: null,
            definition_id: updated.current_definition_id,
            name: "WR-1",
            mode: "simulator",
            call_type: "outbound",
            initial_context: document,
            gathered_context: null,
            logs: { events: [] },
            now: t0
          })
          expect(run).toEqual({
            id: run.id,
            organization_id: organization.id,
            workflow_id: created.id,
            campaign_id: null,
            definition_id: updated.current_definition_id,
            name: "WR-1",
            mode: "simulator",
            call_type: "outbound",
            is_completed: false,
            initial_context: document,
            gathered_context: null,
            cost_info: null,
            usage_info: null,
            logs: { events: [] },
            annotations: null,
            artifacts: { transcript: null, recording: null, user_recording: null, bot_recording: null },
            created_at: t0,
            updated_at: t0
          })
          const finished = Option.getOrThrow(yield* runs.update(run.id, {
            is_completed: true,
            cost_info: { usd: 0.25 },
            artifacts: { transcript: "runs/1/transcript.txt" }
          }, t1))
          expect(finished).toMatchObject({ is_completed: true, cost_info: { usd: 0.25 }, updated_at: t1 })
          expect(finished.artifacts.transcript).toBe("runs/1/transcript.txt")
          expect(yield* runs.list(organization.id, { workflowId: created.id }, { offset: 0, limit: 10 })).toEqual({
            runs: [finished],
            total: 1
          })
          expect(Option.getOrThrow(yield* workflows.find(organization.id, created.id)).total_runs).toBe(1)
        }))

      it.effect("telephony configurations and phone numbers", () =>
        Effect.gen(function*() {
          const { organization } = yield* seed
          const configs = yield* TelephonyConfigsRepo
          const config = Either.getOrThrow(yield* configs.insert({
            organization_id: organization.id,
            name: "Main",
            provider: "simulator",
            credentials: document,
            account_id: "",
            is_default_outbound: true,
            now: t0
          }))
          expect(config).toEqual({
            id: config.id,
            organization_id: organization.id,
            name: "Main",
            provider: "simulator",
            credentials: document,
            account_id: "",
            is_default_outbound: true,
            created_at: t0,
            updated_at: t0
          })
          expect(yield* configs.findDefault(organization.id)).toEqual(Option.some(config))
          expect((yield* configs.listByProvider("simulator")).filter((c) => c.id === config.id)).toEqual([config])
          expect((yield* configs.listByProvider("ari")).some((c) => c.id === config.id)).toBe(false)

          const numbers = yield* PhoneNumbersRepo
          const base = {
            organization_id: organization.id,
            telephony_configuration_id: config.id,
            provider: "simulator",
            account_id: "",
            address_type: "pstn" as const,
            country_code: null,
            label: null,
            inbound_workflow_id: null,
            extra_metadata: {},
            now: t0
          }
          const first = Either.getOrThrow(yield* numbers.insert({
            ...base,
            address: "+1 415 555 0100",
            address_normalized: "+14155550100",
            label: "desk",
            extra_metadata: document,
            is_active: true,
            is_default_caller_id: true
          }))
          expect(first).toEqual({
            id: first.id,
            organization_id: organization.id,
            telephony_configuration_id: config.id,
            address: "+1 415 555 0100",
            address_normalized: "+14155550100",
            address_type: "pstn",
            is_active: true,
            is_default_caller_id: true,
            extra_metadata: document,
            created_at: t0,
            updated_at: t0,
            country_code: null,
            label: "desk",
            inbound_workflow_id: null,
            inbound_workflow_name: null
          })
          yield* numbers.insert({ ...base, address: "+14155550101", address_normalized: "+14155550101", is_active: false, is_default_caller_id: false })
          expect(yield* numbers.callerIds(config.id)).toEqual({ defaultCallerId: "+14155550100", active: ["+14155550100"] })
          expect(
            Either.getLeft(yield* numbers.insert({ ...base, address: "x", address_normalized: "+14155550100", is_active: true, is_default_caller_id: false }))
          ).toEqual(Option.some({ _tag: "InOrganization" }))
          expect((yield* configs.list(organization.id)).map((c) => [c.name, c.is_default_outbound, c.phone_number_count])).toEqual([
            ["Main", true, 1]
          ])
          expect(yield* configs.delete(organization.id, config.id)).toBe("Deleted")
          expect(yield* numbers.list(organization.id, config.id)).toEqual([])
        }))

      it.effect("a row that does not fit its schema is a defect, not a wrong value", () =>
        Effect.gen(function*() {
          const { organization } = yield* seed
          const configs = yield* TelephonyConfigsRepo
          const config = Either.getOrThrow(yield* configs.insert({
            organization_id: organization.id,
            name: "Broken",
            provider: "simulator",
            credentials: {},
            account_id: "",
            is_default_outbound: false,
            now: t0
          }))
          // Valid JSON for the column, but an array where the row schema wants an object.
          const sql = yield* SqlClient.SqlClient
          yield* sql`UPDATE telephony_configurations SET credentials = ${"[1, 2]"} WHERE id = ${config.id}`
          const found = yield* Effect.exit(configs.find(organization.id, config.id))
          expect(found._tag === "Failure" && found.cause._tag === "Die").toBe(true)
        }))
    }
  )
}
