/**
 * A fault the wire can cause: a single call whose attempt cannot be recorded (PostgreSQL refuses a NUL
 * in text) gives its organization slot back. The dispatcher's other in-process faults are tested in
 * core (`core/test/dispatcher/DispatchFaults.test.ts`); the process-level scenarios are in
 * `test/faults/`, run by `npm run test:faults`.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { activeCalls, settle, setupDialing } from "./DispatchHarness.js"
import { call, dialects, TestApp } from "./Harness.js"

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`Dispatcher faults [${dialect}]`, (it) => {
    it.effect("a single call whose attempt cannot be recorded gives its slot back (a NUL in initial_context, 16.4)", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing({ limit: 1, simulator: { talk_seconds: 1 } })
        const uuid = setup.agent.workflow_uuid!
        for (let i = 0; i < 3; i++) {
          // PostgreSQL refuses NUL in text; whatever the answer, no slot may stay held.
          const hostile = yield* call("POST", `/api/v1/public/agent/workflow/${uuid}`, {
            apiKey: setup.apiKey,
            body: { phone_number: "+14155550123", initial_context: { note: "a\u0000b" } }
          })
          if (hostile.status === 200) {
            yield* TestClock.adjust(5000)
            yield* settle(30)
          }
          expect(yield* activeCalls({ organizationId: setup.principal.organizationId })).toBe(0)
        }
        const fine = yield* call("POST", `/api/v1/public/agent/workflow/${uuid}`, { apiKey: setup.apiKey, body: { phone_number: "+14155550123" } })
        expect(fine.status).toBe(200)
      }))
  })
}
