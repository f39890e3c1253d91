import { expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"
import { idsOf, issuesOf, listOf, locsOf } from "./Wire.js"

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "60 seconds" })(`Foundation HTTP [${dialect}]`, (it) => {
    it.effect("health has the spec's shape", () =>
      Effect.gen(function*() {
        const { status, body } = yield* call("GET", "/api/v1/health")
        expect(status).toBe(200)
        expect(body).toEqual({
          status: "ok",
          version: "test",
          backend_api_endpoint: "http://127.0.0.1:0",
          deployment_mode: "oss",
          auth_provider: "local"
        })
      }))

    it.effect("the OpenAPI document is served as valid JSON and lists the API", () =>
      Effect.gen(function*() {
        const { status, body } = yield* call("GET", "/api/v1/openapi.json")
        expect(status).toBe(200)
        expect(body.openapi).toBe("3.1.0")
        expect(Object.keys(body.paths)).toContain("/api/v1/user/api-keys")
        const docs = yield* call("GET", "/docs")
        expect(docs.status).toBe(200)
      }))

    it.effect("401 for a missing, a wrong and an archived key; reactivation restores it", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const missing = yield* call("GET", "/api/v1/user/api-keys")
        expect(missing.status).toBe(401)
        expect(typeof missing.body.detail).toBe("string")
        const wrong = yield* call("GET", "/api/v1/user/api-keys", { apiKey: "agl_not-a-real-key" })
        expect(wrong.status).toBe(401)
        const badToken = yield* call("GET", "/api/v1/auth/me", { token: "als_nope" })
        expect(badToken.status).toBe(401)

        const created = yield* call("POST", "/api/v1/user/api-keys", { apiKey: org.apiKey, body: { name: "second" } })
        expect(created.status).toBe(200)
        expect(created.body.api_key).toMatch(/^agl_[A-Za-z0-9_-]{43}$/)
        expect(created.body.key_prefix).toBe(created.body.api_key.slice(0, 12))
        const second = created.body.api_key as string
        expect((yield* call("GET", "/api/v1/auth/me", { apiKey: second })).status).toBe(200)

        const archived = yield* call("DELETE", `/api/v1/user/api-keys/${created.body.id}`, { apiKey: org.apiKey })
        expect(archived).toEqual({ status: 200, body: { success: true, message: "API key archived successfully" } })
        expect((yield* call("GET", "/api/v1/auth/me", { apiKey: second })).status).toBe(401)

        const listed = yield* call("GET", "/api/v1/user/api-keys", { apiKey: org.apiKey })
        expect(idsOf(listed.body)).not.toContain(created.body.id)
        const all = yield* call("GET", "/api/v1/user/api-keys?include_archived=true", { apiKey: org.apiKey })
        // Read as it is on the wire, every key of it.
        const item = listOf(Schema.Record({ key: Schema.String, value: Schema.Unknown }), all.body).find((k) => k.id === created.body.id) ?? {}
        expect(Object.keys(item).sort()).toEqual(
          ["archived_at", "created_at", "id", "is_active", "key_prefix", "last_used_at", "name"]
        )
        expect(item.is_active).toBe(false)
        expect(item.archived_at).not.toBeNull()
        expect(JSON.stringify(all.body)).not.toContain(second)

        const reactivated = yield* call("PUT", `/api/v1/user/api-keys/${created.body.id}/reactivate`, { apiKey: org.apiKey })
        expect(reactivated.status).toBe(200)
        expect((yield* call("GET", "/api/v1/auth/me", { apiKey: second })).status).toBe(200)
      }))

    it.effect("another organization's key is 404, never revealed", () =>
      Effect.gen(function*() {
        const a = yield* seedOrganization()
        const b = yield* seedOrganization()
        const archiveOther = yield* call("DELETE", `/api/v1/user/api-keys/${a.apiKeyId}`, { apiKey: b.apiKey })
        expect(archiveOther).toEqual({ status: 404, body: { detail: "API key not found" } })
        const reactivateOther = yield* call("PUT", `/api/v1/user/api-keys/${a.apiKeyId}/reactivate`, { apiKey: b.apiKey })
        expect(reactivateOther.status).toBe(404)
        expect((yield* call("GET", "/api/v1/auth/me", { apiKey: a.apiKey })).status).toBe(200)
      }))

    it.effect("login, the first-login password gate, and a member refused admin endpoints", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const createdMember = yield* call("POST", "/api/v1/users", {
          apiKey: org.apiKey,
          body: { email: `Member@${org.name}.test`, password: "member-initial", role: "member" }
        })
        expect(createdMember.status).toBe(200)
        expect(createdMember.body.must_change_password).toBe(true)
        expect(createdMember.body.email).toBe(`member@${org.name}.test`)

        const wrong = yield* call("POST", "/api/v1/auth/login", { body: { email: `member@${org.name}.test`, password: "nope-nope" } })
        expect(wrong.status).toBe(401)
        const login = yield* call("POST", "/api/v1/auth/login", {
          body: { email: `member@${org.name}.test`, password: "member-initial" }
        })
        expect(login.status).toBe(200)
        const token = login.body.token as string

        const gated = yield* call("GET", "/api/v1/auth/me", { token })
        expect(gated).toEqual({ status: 403, body: { detail: "password_change_required" } })
        expect((yield* call("GET", "/api/v1/user/api-keys", { token })).status).toBe(403)

        const badCurrent = yield* call("POST", "/api/v1/auth/change-password", {
          token,
          body: { current_password: "wrong-one", new_password: "member-chosen" }
        })
        expect(badCurrent.status).toBe(403)
        const changed = yield* call("POST", "/api/v1/auth/change-password", {
          token,
          body: { current_password: "member-initial", new_password: "member-chosen" }
        })
        expect(changed.status).toBe(200)
        expect(changed.body.must_change_password).toBe(false)
        const me = yield* call("GET", "/api/v1/auth/me", { token })
        expect(me.status).toBe(200)
        expect(me.body.role).toBe("member")

        const forbidden = yield* call("POST", "/api/v1/users", {
          token,
          body: { email: `x@${org.name}.test`, password: "whatever-123" }
        })
        expect(forbidden.status).toBe(403)
        expect(forbidden.body.detail).toMatch(/admin/)
        expect((yield* call("GET", "/api/v1/users", { token })).status).toBe(403)

        // the member's API key is not gated and not admin either
        const memberKey = yield* call("POST", "/api/v1/user/api-keys", { token, body: { name: "member key" } })
        expect(memberKey.status).toBe(200)
        expect((yield* call("PUT", "/api/v1/organizations/current/concurrent-call-limit", {
          apiKey: memberKey.body.api_key,
          body: { concurrent_call_limit: 5 }
        })).status).toBe(403)
      }))

    it.effect("422 lists every invalid field: wrong type, missing, out of range, malformed JSON", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const wrongType = yield* call("POST", "/api/v1/user/api-keys", { apiKey: org.apiKey, body: { name: 12 } })
        expect(wrongType.status).toBe(422)
        expect(wrongType.body.detail).toEqual([
          { loc: ["body", "name"], msg: "Expected string, actual 12", type: "type_error", input: 12, ctx: {} }
        ])

        const several = yield* call("POST", "/api/v1/users", { apiKey: org.apiKey, body: { email: "not-an-email", role: "boss" } })
        expect(several.status).toBe(422)
        const locs = [...locsOf(several.body)]
        expect(locs.sort()).toEqual(["body.email", "body.password", "body.role"])
        const missing = issuesOf(several.body).find((d) => d.loc[1] === "password")
        expect(missing).toMatchObject({ type: "missing", msg: "Field required" })
        for (const item of several.body.detail) expect(Object.keys(item).sort()).toEqual(["ctx", "input", "loc", "msg", "type"])

        const outOfRange = yield* call("PUT", "/api/v1/organizations/current/concurrent-call-limit", {
          apiKey: org.apiKey,
          body: { concurrent_call_limit: 0 }
        })
        expect(outOfRange.status).toBe(422)
        expect(outOfRange.body.detail[0]).toMatchObject({ loc: ["body", "concurrent_call_limit"], input: 0 })
        expect(outOfRange.body.detail[0].msg).toMatch(/between 1 and/)

        const malformed = yield* call("POST", "/api/v1/user/api-keys", { apiKey: org.apiKey, raw: "{\"name\": " })
        expect(malformed.status).toBe(422)
        expect(malformed.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_invalid" })

        const badPath = yield* call("DELETE", "/api/v1/user/api-keys/abc", { apiKey: org.apiKey })
        expect(badPath.status).toBe(422)
        expect(badPath.body.detail[0]).toMatchObject({ loc: ["path", "api_key_id"], input: "abc" })

        const badQuery = yield* call("GET", "/api/v1/user/api-keys?include_archived=maybe", { apiKey: org.apiKey })
        expect(badQuery.status).toBe(422)
        expect(badQuery.body.detail[0]).toMatchObject({ loc: ["query", "include_archived"], input: "maybe" })
      }))

    it.effect("unknown routes answer 404 JSON", () =>
      Effect.gen(function*() {
        expect(yield* call("GET", "/api/v1/no-such-thing")).toEqual({ status: 404, body: { detail: "Not Found" } })
      }))

    it.effect("login attempts are rate-limited per email", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const email = `admin@${org.name}.test`
        const statuses: Array<number> = []
        for (let i = 0; i < 11; i++) {
          statuses.push((yield* call("POST", "/api/v1/auth/login", { body: { email, password: `wrong-${i}` } })).status)
        }
        expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true)
        expect(statuses[10]).toBe(429)
        // even the right password waits until the window passes
        expect((yield* call("POST", "/api/v1/auth/login", { body: { email, password: "initial-password" } })).status).toBe(429)
        // other emails are unaffected: another account logs in from the same address
        const other = yield* seedOrganization()
        expect((yield* call("POST", "/api/v1/auth/login", { body: { email: `admin@${other.name}.test`, password: "initial-password" } })).status).toBe(200)
      }))

    it.effect("an admin sets the organization's concurrent call limit", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const before = yield* call("GET", "/api/v1/organizations/current", { apiKey: org.apiKey })
        expect(before.body.concurrent_call_limit).toBe(10)
        const after = yield* call("PUT", "/api/v1/organizations/current/concurrent-call-limit", {
          apiKey: org.apiKey,
          body: { concurrent_call_limit: 25 }
        })
        expect(after.status).toBe(200)
        expect(after.body.concurrent_call_limit).toBe(25)
      }))
  })
}
