/**
 * Stored credentials (`/api/v1/credentials`, the reference's shape) and the workflow `webhook` node
 * that names one: the data is checked per type, never returned, and resolved when the request is
 * sent; a deleted credential fails the node's request instead of sending it without authorization.
 * On SQLite and PostgreSQL, with a real local receiver.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Credential } from "@agentline/api/credentials/Credentials"
import { Effect, Schema, TestClock } from "effect"
import { plainDefinition, settle } from "./DispatchHarness.js"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"
import { startReceiver } from "./WebhookReceiver.js"
import { decode, listOf, locsOf } from "./Wire.js"

/** A webhook node's entry in its run's logs (nulls are left out of it). */
const WebhookNodeLog = Schema.Struct({
  status: Schema.String,
  attempt_count: Schema.Number,
  last_attempt: Schema.Struct({ status_code: Schema.optional(Schema.Number), error: Schema.optional(Schema.String) })
})
const RunLogs = Schema.Struct({ logs: Schema.NullOr(Schema.Struct({ "webhook_node:crm": Schema.optional(WebhookNodeLog) })) })

const receiver = Effect.acquireRelease(Effect.promise(() => startReceiver()), (r) => Effect.promise(() => r.close()))

for (const dialect of dialects) {
  layer(TestApp(dialect, { webhooks: { allowPrivate: true, pollMillis: 1000, timeoutMillis: 500 } }), { timeout: "120 seconds" })(
    `Stored credentials [${dialect}]`,
    (it) => {
      it.effect("created per type, listed and fetched without their data, updated, deleted; every bad field is a 422 item", () =>
        Effect.gen(function*() {
          const org = yield* seedOrganization()
          const created = yield* call("POST", "/api/v1/credentials", {
            apiKey: org.apiKey,
            body: { name: "CRM", credential_type: "bearer_token", credential_data: { token: "crm-secret-token" } }
          })
          expect(created.status).toBe(200)
          expect(created.body).toMatchObject({ name: "CRM", description: null, credential_type: "bearer_token" })
          expect(created.body.uuid).toMatch(/^[0-9a-f-]{36}$/)
          const listed = yield* call("GET", "/api/v1/credentials", { apiKey: org.apiKey })
          expect(listOf(Credential, listed.body).map((c) => c.uuid)).toEqual([created.body.uuid])
          expect(JSON.stringify(listed.body)).not.toContain("crm-secret-token")
          expect(JSON.stringify((yield* call("GET", `/api/v1/credentials/${created.body.uuid}`, { apiKey: org.apiKey })).body))
            .not.toContain("crm-secret-token")
          // Sealed at rest.
          const sql = yield* SqlClient.SqlClient
          const stored = yield* sql<{ sealed_data: string }>`SELECT sealed_data FROM credentials WHERE uuid = ${created.body.uuid}`.pipe(Effect.orDie)
          expect(stored[0]!.sealed_data).not.toContain("crm-secret-token")

          const bad = yield* call("POST", "/api/v1/credentials", {
            apiKey: org.apiKey,
            body: { name: "x", credential_type: "custom_header", credential_data: { header_name: "no spaces", header_value: "a\r\nb" } }
          })
          expect(bad.status).toBe(422)
          expect(locsOf(bad.body)).toEqual(["body.credential_data.header_name", "body.credential_data.header_value"])
          expect((yield* call("POST", "/api/v1/credentials", { apiKey: org.apiKey, body: { name: "", credential_type: "magic" } })).status)
            .toBe(422)

          // Changing the type needs data for it.
          const retyped = yield* call("PUT", `/api/v1/credentials/${created.body.uuid}`, { apiKey: org.apiKey, body: { credential_type: "basic_auth" } })
          expect(retyped.status).toBe(422)
          const renamed = yield* call("PUT", `/api/v1/credentials/${created.body.uuid}`, {
            apiKey: org.apiKey,
            body: { name: "CRM (rotated)", credential_data: { token: "new-token" } }
          })
          expect(renamed.body).toMatchObject({ name: "CRM (rotated)", credential_type: "bearer_token" })

          const other = yield* seedOrganization()
          expect((yield* call("GET", `/api/v1/credentials/${created.body.uuid}`, { apiKey: other.apiKey })).status).toBe(404)
          expect((yield* call("DELETE", `/api/v1/credentials/${created.body.uuid}`, { apiKey: other.apiKey })).status).toBe(404)
          expect((yield* call("DELETE", `/api/v1/credentials/${created.body.uuid}`, { apiKey: org.apiKey })).status).toBe(200)
          expect((yield* call("GET", `/api/v1/credentials/${created.body.uuid}`, { apiKey: org.apiKey })).status).toBe(404)
        }))

      it.effect("a webhook node sends its credential's header, resolved when sent; once the credential is deleted it is not sent at all", () =>
        Effect.scoped(Effect.gen(function*() {
          const r = yield* receiver
          const org = yield* seedOrganization()
          yield* call("POST", "/api/v1/organizations/telephony-configs", {
            apiKey: org.apiKey,
            body: { name: "sim", config: { provider: "simulator", ring_seconds: 1, talk_seconds: 1 }, is_default_outbound: true }
          })
          const credential = (yield* call("POST", "/api/v1/credentials", {
            apiKey: org.apiKey,
            body: { name: "CRM", credential_type: "basic_auth", credential_data: { username: "agentline", password: "pa55" } }
          })).body
          const definition = plainDefinition()
          const agent = (yield* call("POST", "/api/v1/workflow/create/definition", {
            apiKey: org.apiKey,
            body: {
              name: "Hooked",
              workflow_definition: {
                ...definition,
                nodes: [...definition.nodes, {
                  id: "crm",
                  type: "webhook",
                  position: { x: 300, y: 0 },
                  data: { name: "CRM", endpoint_url: `${r.url}/crm`, credential_uuid: credential.uuid, payload_template: { run: "{{workflow_run_id}}" } }
                }]
              }
            }
          })).body
          const dial = (phone: string) =>
            call("POST", `/api/v1/public/agent/workflow/${agent.workflow_uuid}`, { apiKey: org.apiKey, body: { phone_number: phone } })
          const first = (yield* dial("+14155550140")).body.workflow_run_id
          for (let i = 0; i < 30 && r.received().length === 0; i++) {
            yield* TestClock.adjust(1000)
            yield* settle(20)
          }
          expect(r.received()[0]).toMatchObject({ json: { run: first } })
          expect(r.received()[0]!.headers.authorization).toBe(`Basic ${Buffer.from("agentline:pa55").toString("base64")}`)
          // The secret is never written to the outbox.
          const sql = yield* SqlClient.SqlClient
          const outbox = yield* sql<{ target: unknown }>`SELECT target FROM webhook_deliveries WHERE run_id = ${first}`.pipe(Effect.orDie)
          expect(JSON.stringify(outbox)).not.toContain("pa55")
          expect(JSON.stringify(outbox)).not.toContain(Buffer.from("agentline:pa55").toString("base64"))

          yield* call("DELETE", `/api/v1/credentials/${credential.uuid}`, { apiKey: org.apiKey })
          const second = (yield* dial("+14155550141")).body.workflow_run_id
          let log: typeof WebhookNodeLog.Type | undefined
          for (let i = 0; i < 30; i++) {
            yield* TestClock.adjust(1000)
            yield* settle(20)
            log = decode(RunLogs, (yield* call("GET", `/api/v1/workflow/${agent.id}/runs/${second}`, { apiKey: org.apiKey })).body).logs?.["webhook_node:crm"]
            if (log !== undefined) break
          }
          expect(log).toMatchObject({ status: "failed", attempt_count: 1 })
          expect(log?.last_attempt.status_code).toBeUndefined()
          expect(log?.last_attempt.error).toContain("no longer exists")
          expect(r.received().length).toBe(1)
        })))
    }
  )
}
