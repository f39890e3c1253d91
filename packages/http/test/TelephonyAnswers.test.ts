/**
 * The answer route: a provider asks what to do once a call of ours is answered. The request is verified
 * against the full public URL, its progress is applied, and the answer is the provider's document.
 */
import { Simulator } from "@agentline/telephony-simulator"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { setupDialing } from "./DispatchHarness.js"
import { call, dialects, TestApp } from "./Harness.js"

const PUBLIC_URL = "http://127.0.0.1:0"

const attemptOf = (runId: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: number; provider_call_id: string }>`SELECT id, provider_call_id FROM call_attempts WHERE run_id = ${runId}`
    return { id: Number(row!.id), providerCallId: row!.provider_call_id }
  }).pipe(Effect.orDie)

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "60 seconds" })(`Telephony answers [${dialect}]`, (it) => {
    it.effect("a signed answer request gets the provider's document; unsigned ones, other providers and unknown calls do not", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing({ simulator: { talk_seconds: 3600, ring_seconds: 600, webhook_secret: "whsec-test" } })
        const placed = yield* call("POST", `/api/v1/public/agent/workflow/${setup.agent.workflow_uuid}`, {
          apiKey: setup.apiKey,
          body: { phone_number: "+14155550100" }
        })
        expect(placed.status).toBe(200)
        const attempt = yield* attemptOf(placed.body.workflow_run_id)
        const path = `/api/v1/telephony/answer/simulator/${attempt.id}`
        const post = (url: string, body: unknown, secret = "whsec-test") => {
          const raw = JSON.stringify(body)
          const signature = Simulator.Callbacks.sign(secret, `${PUBLIC_URL}${url}`, new TextEncoder().encode(raw))
          return call("POST", url, { raw, headers: { "content-type": "application/json", "x-simulator-signature": signature } })
        }
        const answered = { call_id: attempt.providerCallId, event: "answered" }

        expect((yield* post(path, answered, "another-secret")).status).toBe(401)
        expect((yield* post(`/api/v1/telephony/answer/twilio/${attempt.id}`, answered)).status).toBe(404)
        expect((yield* post(`/api/v1/telephony/answer/simulator/999999`, answered)).status).toBe(404)
        expect((yield* post(`/api/v1/telephony/answer/simulator/abc`, answered)).status).toBe(404)

        // The call's audio goes to this server's media route, behind a fresh single-use token.
        const first = yield* post(path, answered)
        expect(first.status).toBe(200)
        expect(first.body).toMatchObject({ action: "connect", parameters: { attempt_id: String(attempt.id) } })
        expect(first.body.url).toMatch(/^ws:\/\/127\.0\.0\.1:0\/api\/v1\/telephony\/media\/simulator\/[A-Za-z0-9_-]{43}$/)
        const again = yield* post(path, answered)
        expect(again.body.url).not.toBe(first.body.url)

        // Once the call is over, a late answer request is told to hang up.
        const ended = yield* call("POST", `/api/v1/telephony/callbacks/simulator/${attempt.id}`, {
          raw: JSON.stringify({ call_id: attempt.providerCallId, event: "ended", outcome: "completed", duration: 3 }),
          headers: {
            "content-type": "application/json",
            "x-simulator-signature": Simulator.Callbacks.sign(
              "whsec-test",
              `${PUBLIC_URL}/api/v1/telephony/callbacks/simulator/${attempt.id}`,
              new TextEncoder().encode(JSON.stringify({ call_id: attempt.providerCallId, event: "ended", outcome: "completed", duration: 3 }))
            )
          }
        })
        expect(ended.status).toBe(200)
        expect(yield* post(path, answered)).toEqual({ status: 200, body: { action: "reject", reason: "" } })
      }))
  })
}
