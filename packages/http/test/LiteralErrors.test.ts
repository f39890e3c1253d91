/**
 * A wrong literal answers 422 `literal_error` naming the allowed values (defect 9.7), whether the
 * request body is checked by the API (a user's role, an upload's content type) or a service checks a
 * nested part itself (a provider's config: a simulator rule's `match`).
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"

layer(TestApp(dialects[0]!), { timeout: "60 seconds" })("422 for a wrong literal", (it) => {
  it.effect("a simulator rule's match says 'prefix' or 'exact'", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      const reply = yield* call("POST", "/api/v1/organizations/telephony-configs", {
        apiKey: org.apiKey,
        body: {
          name: "Simulator",
          config: { provider: "simulator", rules: [{ match: "+1415...", pattern: "+1415", outcomes: ["busy", "done"] }] }
        }
      })
      expect(reply.status).toBe(422)
      expect(reply.body.detail).toEqual([
        {
          loc: ["body", "config", "rules", 0, "match"],
          msg: "Input should be 'prefix' or 'exact'",
          type: "literal_error",
          input: "+1415...",
          ctx: { expected: "'prefix' or 'exact'" }
        },
        {
          loc: ["body", "config", "rules", 0, "outcomes", 1],
          msg: "Input should be 'completed', 'busy', 'no_answer', 'voicemail', 'failed' or 'canceled'",
          type: "literal_error",
          input: "done",
          ctx: { expected: "'completed', 'busy', 'no_answer', 'voicemail', 'failed' or 'canceled'" }
        }
      ])
    }))

  it.effect("request bodies checked by the API say the same", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      const user = yield* call("POST", "/api/v1/users", {
        apiKey: org.apiKey,
        body: { email: "someone@example.com", password: "long-enough-password", role: "owner" }
      })
      expect(user.status).toBe(422)
      expect(user.body.detail).toEqual([{
        loc: ["body", "role"],
        msg: "Input should be 'admin' or 'member'",
        type: "literal_error",
        input: "owner",
        ctx: { expected: "'admin' or 'member'" }
      }])
    }))
})
