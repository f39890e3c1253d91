/**
 * Roles (issue 16, defect 13): members work with agents, campaigns, runs and their own API keys;
 * administrators also manage users, other users' keys, key reactivation, telephony and limits.
 * Everything else a member tries is 403 with a message naming the role needed (docs/security.md).
 */
import { ApiKeys } from "@agentline/core/api-keys/ApiKeys"
import { acting } from "@agentline/core/organizations/Principal"
import { Users } from "@agentline/core/users/Users"
import { expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { definition } from "./fixtures.js"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"
import { decode, idsOf } from "./Wire.js"

/** An organization with its admin's key, a simulator configuration (its own account: numbers are unique per provider account across organizations) with one number, and a member with a key. */
const seed = Effect.gen(function*() {
  const org = yield* seedOrganization()
  const member = yield* (yield* Users).create({
    email: `member@${org.name}.test`,
    password: "member-password",
    role: "member",
    organization: { id: org.admin.organization_id },
    mustChangePassword: false
  })
  const memberKey = yield* (yield* ApiKeys).create(acting(member), "member key")
  const config = yield* call("POST", "/api/v1/organizations/telephony-configs", {
    apiKey: org.apiKey,
    body: { name: "Main", config: { provider: "simulator", account_id: `acct-${org.name}` }, is_default_outbound: true }
  })
  expect(config.status, JSON.stringify(config.body)).toBe(200)
  const number = yield* call("POST", `/api/v1/organizations/telephony-configs/${config.body.id}/phone-numbers`, {
    apiKey: org.apiKey,
    body: { address: "+14155550100" }
  })
  expect(number.status, JSON.stringify(number.body)).toBe(200)
  return { org, member, memberKey, configId: config.body.id as number, numberId: number.body.id as number }
}).pipe(Effect.orDie)

const expectAdminNeeded = (reply: { readonly status: number; readonly body: unknown }) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(403)
  expect(decode(Schema.Struct({ detail: Schema.String }), reply.body).detail).toMatch(/needs the admin role \(your role is member\)/)
}

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "60 seconds" })(`Roles [${dialect}]`, (it) => {
    it.effect("a member cannot archive or reactivate the admin's keys, nor reactivate its own", () =>
      Effect.gen(function*() {
        const { memberKey, org } = yield* seed
        const apiKey = memberKey.api_key
        expectAdminNeeded(yield* call("DELETE", `/api/v1/user/api-keys/${org.apiKeyId}`, { apiKey }))
        expect((yield* call("GET", "/api/v1/auth/me", { apiKey: org.apiKey })).status).toBe(200)

        const second = yield* call("POST", "/api/v1/user/api-keys", { apiKey, body: { name: "second" } })
        expect(second.status).toBe(200)
        const archived = yield* call("DELETE", `/api/v1/user/api-keys/${second.body.id}`, { apiKey })
        expect(archived.status).toBe(200)
        expectAdminNeeded(yield* call("PUT", `/api/v1/user/api-keys/${second.body.id}/reactivate`, { apiKey }))
        expect((yield* call("GET", "/api/v1/auth/me", { apiKey: second.body.api_key })).status).toBe(401)

        // the admin can: reactivate the member's key, archive it
        expect((yield* call("PUT", `/api/v1/user/api-keys/${second.body.id}/reactivate`, { apiKey: org.apiKey })).status).toBe(200)
        expect((yield* call("DELETE", `/api/v1/user/api-keys/${memberKey.id}`, { apiKey: org.apiKey })).status).toBe(200)
        expect((yield* call("GET", "/api/v1/auth/me", { apiKey })).status).toBe(401)
      }))

    it.effect("a member lists only its own keys; an admin lists everyone's", () =>
      Effect.gen(function*() {
        const { memberKey, org } = yield* seed
        const mine = yield* call("GET", "/api/v1/user/api-keys?include_archived=true", { apiKey: memberKey.api_key })
        expect(idsOf(mine.body)).toEqual([memberKey.id])
        const all = yield* call("GET", "/api/v1/user/api-keys", { apiKey: org.apiKey })
        expect([...idsOf(all.body)].sort()).toEqual([org.apiKeyId, memberKey.id].sort())
      }))

    it.effect("a member cannot change telephony configurations or phone numbers, but reads them", () =>
      Effect.gen(function*() {
        const { configId, memberKey, numberId } = yield* seed
        const apiKey = memberKey.api_key
        const configs = `/api/v1/organizations/telephony-configs`
        const numbers = `${configs}/${configId}/phone-numbers`
        expectAdminNeeded(yield* call("POST", configs, { apiKey, body: { name: "Mine", config: { provider: "simulator" } } }))
        expectAdminNeeded(yield* call("PUT", `${configs}/${configId}`, { apiKey, body: { name: "Renamed", config: { provider: "simulator" } } }))
        expectAdminNeeded(yield* call("POST", `${configs}/${configId}/set-default-outbound`, { apiKey }))
        expectAdminNeeded(yield* call("DELETE", `${configs}/${configId}`, { apiKey }))
        expectAdminNeeded(yield* call("POST", numbers, { apiKey, body: { address: "+14155550199" } }))
        expectAdminNeeded(yield* call("PUT", `${numbers}/${numberId}`, { apiKey, body: { label: "mine" } }))
        expectAdminNeeded(yield* call("POST", `${numbers}/${numberId}/set-default-caller`, { apiKey }))
        expectAdminNeeded(yield* call("DELETE", `${numbers}/${numberId}`, { apiKey }))

        const read = yield* call("GET", `${configs}/${configId}`, { apiKey })
        expect(read.status).toBe(200)
        expect(read.body.name).toBe("Main")
        expect((yield* call("GET", numbers, { apiKey })).body.phone_numbers).toHaveLength(1)
        expect((yield* call("GET", configs, { apiKey })).status).toBe(200)
      }))

    it.effect("a member cannot manage users or limits, with a session as with a key", () =>
      Effect.gen(function*() {
        const { memberKey, org } = yield* seed
        const session = yield* call("POST", "/api/v1/auth/login", {
          body: { email: `member@${org.name}.test`, password: "member-password" }
        })
        expect(session.status).toBe(200)
        for (const credentials of [{ apiKey: memberKey.api_key }, { token: session.body.token as string }]) {
          expectAdminNeeded(yield* call("POST", "/api/v1/users", { ...credentials, body: { email: `x@${org.name}.test`, password: "whatever-123" } }))
          expectAdminNeeded(yield* call("GET", "/api/v1/users", credentials))
          expectAdminNeeded(yield* call("PUT", "/api/v1/organizations/current/concurrent-call-limit", {
            ...credentials,
            body: { concurrent_call_limit: 50 }
          }))
          expect((yield* call("GET", "/api/v1/organizations/current", credentials)).status).toBe(200)
        }
      }))

    it.effect("a member works with agents and uploads", () =>
      Effect.gen(function*() {
        const { memberKey } = yield* seed
        const apiKey = memberKey.api_key
        const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey,
          body: { name: "Member's agent", workflow_definition: definition() }
        })
        expect(agent.status, JSON.stringify(agent.body)).toBe(200)
        const upload = yield* call("POST", "/api/v1/storage/presigned-upload-url", {
          apiKey,
          body: { file_name: "contacts.csv", file_size: 10 }
        })
        expect(upload.status).toBe(200)
      }))
  })
}
