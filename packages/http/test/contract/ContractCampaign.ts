/**
 * The campaign part of the contract: 100 contacts through the provider's fake run to `completed`, with
 * exactly the outcomes the same campaign gets through the simulator (no retries, so each contact's
 * one call decides it). 100 at a concurrency of 50 is two waves of calls in flight at once, which is
 * what the case checks; the dispatcher's own tests take campaigns far larger.
 */
import { Organizations } from "@agentline/core/organizations/Organizations"
import { Uploads } from "@agentline/core/uploads/Uploads"
import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { call } from "../Harness.js"
import type { Scenario } from "./Carrier.js"
import type { ContractIt } from "./ContractMedia.js"
import { type Fake, freshNumber, setupCarrier } from "./Contract.js"

const CONTACTS = 100

/** Contact i's scenario: mostly answered, every other outcome represented. */
const scenarioOf = (i: number, machineDetection: boolean): Exclude<Scenario, "invalid" | "talking"> => {
  const scenario = (["completed", "completed", "completed", "completed", "busy", "no_answer", "failed", "voicemail", "completed", "completed"] as const)[i % 10]!
  // Without machine detection a machine that answers is an answered call.
  return scenario === "voicemail" && !machineDetection ? "completed" : scenario
}

const outcomeOf: Record<Exclude<Scenario, "invalid" | "talking">, string> = {
  completed: "completed",
  busy: "busy",
  no_answer: "no_answer",
  failed: "failed",
  voicemail: "voicemail"
}

const sleep = (millis: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, millis)))

const runCampaign = (setup: Effect.Effect.Success<ReturnType<typeof setupCarrier>>, configurationId: number, csv: string) =>
  Effect.gen(function*() {
    const uploaded = yield* (yield* Uploads).store(setup.principal, "contacts.csv", new TextEncoder().encode(csv)).pipe(Effect.orDie)
    const created = yield* call("POST", "/api/v1/campaign/create", {
      apiKey: setup.apiKey,
      body: {
        name: `parity-${configurationId}`,
        workflow_id: setup.agent.id,
        source_type: "csv",
        source_id: uploaded,
        telephony_configuration_id: configurationId,
        retry_config: { enabled: false },
        // A tenth of the contacts fail by design, and failures end first: off, the breaker could trip on
        // the first few outcomes when the machine is busy (it has its own tests).
        circuit_breaker: { enabled: false },
        max_concurrency: 50
      }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const id = created.body.id as number
    expect((yield* call("POST", `/api/v1/campaign/${id}/start`, { apiKey: setup.apiKey })).status).toBe(200)
    const deadline = Date.now() + 90_000
    let state = ""
    while (Date.now() < deadline) {
      state = (yield* call("GET", `/api/v1/campaign/${id}`, { apiKey: setup.apiKey })).body.state
      if (state === "completed" || state === "failed") break
      yield* sleep(100)
    }
    expect(state).toBe("completed")
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ phone_number: string; state: string; last_outcome: string | null }>`
      SELECT phone_number, state, last_outcome FROM contacts WHERE campaign_id = ${id} ORDER BY phone_number`.pipe(Effect.orDie)
    return rows.map((r) => ({ phone_number: r.phone_number, state: r.state, last_outcome: r.last_outcome }))
  })

export const campaignTests = (it: ContractIt, fakeTag: typeof Fake) => {
  it.effect(`a campaign of ${CONTACTS} contacts runs to completed through the fake with the simulator's results`, () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* fakeTag
      const detects = carrier.machineDetection !== false
      const setup = yield* setupCarrier({ machineDetection: detects })
      yield* (yield* Organizations).setConcurrentCallLimit(setup.principal.organizationId, 50)
      const numbers = Array.from({ length: CONTACTS }, () => freshNumber("+1415222"))
      numbers.forEach((n, i) => fake.behave(n, scenarioOf(i, detects)))
      const csv = ["phone_number", ...numbers].join("\n") + "\n"

      const simulator = yield* call("POST", "/api/v1/organizations/telephony-configs", {
        apiKey: setup.apiKey,
        body: {
          name: "simulated twin",
          config: {
            provider: "simulator",
            account_id: `twin-${setup.principal.organizationId}`,
            ring_seconds: 0.02,
            talk_seconds: 0.05,
            rules: numbers.map((n, i) => ({ match: "exact", pattern: n, outcomes: [outcomeOf[scenarioOf(i, detects)]] }))
          }
        }
      })
      expect(simulator.status, JSON.stringify(simulator.body)).toBe(200)

      const throughFake = yield* runCampaign(setup, setup.configurationId, csv)
      const throughSimulator = yield* runCampaign(setup, simulator.body.id, csv)
      expect(throughFake.length).toBe(CONTACTS)
      expect(throughFake).toEqual(throughSimulator)
      const tally = (rows: ReadonlyArray<{ readonly last_outcome: string | null }>) =>
        rows.reduce<Record<string, number>>((t, r) => ({ ...t, [r.last_outcome ?? "none"]: (t[r.last_outcome ?? "none"] ?? 0) + 1 }), {})
      const tenth = CONTACTS / 10
      expect(tally(throughFake)).toEqual(
        detects
          ? { completed: 6 * tenth, busy: tenth, no_answer: tenth, failed: tenth, voicemail: tenth }
          : { completed: 7 * tenth, busy: tenth, no_answer: tenth, failed: tenth }
      )
    }), 180_000)
}
