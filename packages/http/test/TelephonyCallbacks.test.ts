/**
 * Provider callbacks through the server: the request is verified against the full public URL the
 * provider called (query included), as carriers sign it — not against the path the server saw.
 */
import { Simulator } from "@agentline/telephony-simulator"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { setupDialing } from "./DispatchHarness.js"
import { call, dialects, TestApp } from "./Harness.js"

/** The test server's public address (`Harness.TestApp`). */
const PUBLIC_URL = "http://127.0.0.1:0"

const attemptOf = (runId: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: number; provider_call_id: string }>`SELECT id, provider_call_id FROM call_attempts WHERE run_id = ${runId}`
    return { id: Number(row!.id), providerCallId: row!.provider_call_id }
  }).pipe(Effect.orDie)

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "60 seconds" })(`Telephony callbacks [${dialect}]`, (it) => {
    it.effect("a signed callback verifies against the full public URL with its query; a signature over the path alone is refused", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing({ simulator: { talk_seconds: 3600, webhook_secret: "whsec-test" } })
        const placed = yield* call("POST", `/api/v1/public/agent/workflow/${setup.agent.workflow_uuid}`, {
          apiKey: setup.apiKey,
          body: { phone_number: "+14155550100" }
        })
        expect(placed.status).toBe(200)
        const attempt = yield* attemptOf(placed.body.workflow_run_id)
        const path = `/api/v1/telephony/callbacks/simulator/${attempt.id}?leg=callee&retry=0`
        const raw = JSON.stringify({ call_id: attempt.providerCallId, event: "ended", outcome: "completed", duration: 3 })
        const bytes = new TextEncoder().encode(raw)
        const post = (signature: string) =>
          call("POST", path, { raw, headers: { "content-type": "application/json", "x-simulator-signature": signature } })

        const overPath = yield* post(Simulator.Callbacks.sign("whsec-test", path, bytes))
        expect(overPath.status).toBe(401)
        const withoutQuery = yield* post(Simulator.Callbacks.sign("whsec-test", `${PUBLIC_URL}${path.split("?")[0]}`, bytes))
        expect(withoutQuery.status).toBe(401)
        const overFullUrl = yield* post(Simulator.Callbacks.sign("whsec-test", `${PUBLIC_URL}${path}`, bytes))
        expect(overFullUrl).toEqual({ status: 200, body: { ok: true, events: 1 } })

        const run = yield* call("GET", `/api/v1/workflow/${setup.agent.id}/runs/${placed.body.workflow_run_id}`, { apiKey: setup.apiKey })
        expect(run.body.gathered_context.outcome).toBe("completed")
      }))
  })
}
