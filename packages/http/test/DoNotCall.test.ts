/**
 * The do-not-call list (issue 15): managed through the API, numbers normalized like contacts'; a single
 * call to a listed number is refused with 409. That a campaign never dials a listed contact is tested in
 * core (`core/test/dispatcher/DoNotCall.test.ts`). On SQLite and PostgreSQL.
 */
import { Users } from "@agentline/core/users/Users"
import { ApiKeys } from "@agentline/core/api-keys/ApiKeys"
import { acting } from "@agentline/core/organizations/Principal"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { setupDialing, uploadCsv } from "./DispatchHarness.js"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"

const DNC = "/api/v1/organizations/do-not-call"

/** An API key of a member of the organization of `org`. */
const memberKey = (org: Effect.Effect.Success<ReturnType<typeof seedOrganization>>) =>
  Effect.gen(function*() {
    const member = yield* (yield* Users).create({
      email: `member@${org.name}.test`,
      password: "member-password",
      role: "member",
      organization: { id: org.admin.organization_id },
      mustChangePassword: false
    })
    return (yield* (yield* ApiKeys).create(acting(member), "member key")).api_key
  }).pipe(Effect.orDie)

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`Do-not-call list [${dialect}]`, (it) => {
    it.effect("numbers are added normalized, listed, checked and removed; every bad number is a 422 item", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const added = yield* call("POST", DNC, {
          apiKey: org.apiKey,
          body: { phone_numbers: ["+1 (415) 555-0100", "4155550101", "+14155550100"], reason: "asked on the phone", country_code: "US" }
        })
        expect(added.status).toBe(200)
        expect(added.body).toEqual({ added: 2, already_listed: 0 })
        const again = yield* call("POST", DNC, { apiKey: org.apiKey, body: { phone_numbers: ["+14155550101", "+14155550102"] } })
        expect(again.body).toEqual({ added: 1, already_listed: 1 })

        const bad = yield* call("POST", DNC, { apiKey: org.apiKey, body: { phone_numbers: ["+14155550103", "hello", "+12"] } })
        expect(bad.status).toBe(422)
        expect(bad.body.detail.map((d: { readonly loc: ReadonlyArray<string | number> }) => d.loc)).toEqual([["body", "phone_numbers", 1], ["body", "phone_numbers", 2]])
        // Nothing of a refused request is listed.
        expect((yield* call("GET", `${DNC}/check?phone_number=%2B14155550103`, { apiKey: org.apiKey })).body.listed).toBe(false)
        expect((yield* call("POST", DNC, { apiKey: org.apiKey, body: { phone_numbers: [] } })).status).toBe(422)

        const listed = yield* call("GET", `${DNC}?limit=2`, { apiKey: org.apiKey })
        expect(listed.body).toMatchObject({ total_count: 3, page: 1, limit: 2, total_pages: 2 })
        expect(listed.body.entries.length).toBe(2)
        const checked = yield* call("GET", `${DNC}/check?phone_number=${encodeURIComponent("(415) 555-0100")}&country_code=US`, { apiKey: org.apiKey })
        expect(checked.body).toMatchObject({
          phone_number: "+14155550100",
          listed: true,
          entry: { phone_number: "+14155550100", reason: "asked on the phone", source: "api", run_id: null }
        })

        // Another organization has its own list.
        const other = yield* seedOrganization()
        expect((yield* call("GET", `${DNC}/check?phone_number=%2B14155550100`, { apiKey: other.apiKey })).body.listed).toBe(false)
        expect((yield* call("GET", DNC, { apiKey: other.apiKey })).body.total_count).toBe(0)

        // Removing takes an administrator; an unlisted number is 404.
        const member = yield* memberKey(org)
        expect((yield* call("POST", DNC, { apiKey: member, body: { phone_numbers: ["+14155550109"] } })).status).toBe(200)
        expect((yield* call("DELETE", `${DNC}?phone_number=%2B14155550100`, { apiKey: member })).status).toBe(403)
        expect((yield* call("DELETE", `${DNC}?phone_number=%2B14155550100`, { apiKey: org.apiKey })).status).toBe(200)
        expect((yield* call("DELETE", `${DNC}?phone_number=%2B14155550100`, { apiKey: org.apiKey })).status).toBe(404)
        expect((yield* call("GET", `${DNC}/check?phone_number=nope`, { apiKey: org.apiKey })).status).toBe(422)
      }))

    it.effect("a CSV is imported whole: numbers normalized, repeats listed once; a file with a bad number is refused naming its rows", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const good = yield* uploadCsv(org.principal, "name,phone_number\nAda,+14155550300\nBob,+1 415 555 0301\nAda again,+14155550300\n")
        const imported = yield* call("POST", `${DNC}/import`, { apiKey: org.apiKey, body: { file_key: good, reason: "CRM opt-outs" } })
        expect(imported.status).toBe(200)
        // The repeat in the file counts once.
        expect(imported.body).toEqual({ added: 2, already_listed: 0 })
        const checked = yield* call("GET", `${DNC}/check?phone_number=%2B14155550301`, { apiKey: org.apiKey })
        expect(checked.body.entry).toMatchObject({ reason: "CRM opt-outs", source: "api" })
        // Imported again: nothing new.
        expect((yield* call("POST", `${DNC}/import`, { apiKey: org.apiKey, body: { file_key: good } })).body).toEqual({ added: 0, already_listed: 2 })

        const bad = yield* uploadCsv(org.principal, "phone_number\n+14155550302\nnot-a-number\n\n+14155550303\n,\n")
        const refused = yield* call("POST", `${DNC}/import`, { apiKey: org.apiKey, body: { file_key: bad } })
        expect(refused.status).toBe(400)
        expect(refused.body.detail).toContain("Invalid phone numbers in rows: 3")
        expect((yield* call("GET", `${DNC}/check?phone_number=%2B14155550302`, { apiKey: org.apiKey })).body.listed).toBe(false)
        const noColumn = yield* uploadCsv(org.principal, "number\n+14155550304\n")
        expect((yield* call("POST", `${DNC}/import`, { apiKey: org.apiKey, body: { file_key: noColumn } })).body.detail).toContain("'phone_number' column")
        // Another organization's upload is not readable here.
        const other = yield* seedOrganization()
        const foreign = yield* call("POST", `${DNC}/import`, { apiKey: other.apiKey, body: { file_key: good } })
        expect(foreign.status).toBe(400)
        expect(foreign.body.detail).toContain(good)
        expect((yield* call("POST", `${DNC}/import`, { apiKey: org.apiKey, body: {} })).status).toBe(422)
      }))

    it.effect("a single call to a listed number is refused with 409 and leaves no run", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing()
        const agent = yield* call("GET", `/api/v1/workflow/fetch/${setup.agent.id}`, { apiKey: setup.apiKey })
        expect((yield* call("POST", DNC, { apiKey: setup.apiKey, body: { phone_numbers: ["+14155550177"] } })).status).toBe(200)
        const refused = yield* call("POST", `/api/v1/public/agent/workflow/${agent.body.workflow_uuid}`, {
          apiKey: setup.apiKey,
          body: { phone_number: "+14155550177" }
        })
        expect(refused.status).toBe(409)
        expect(refused.body.detail).toContain("do-not-call list")
        const runs = yield* call("GET", `/api/v1/workflow/${setup.agent.id}/runs`, { apiKey: setup.apiKey })
        expect(runs.body.total_count).toBe(0)
        const allowed = yield* call("POST", `/api/v1/public/agent/workflow/${agent.body.workflow_uuid}`, {
          apiKey: setup.apiKey,
          body: { phone_number: "+14155550178" }
        })
        expect(allowed.status).toBe(200)
      }))
  })
}
