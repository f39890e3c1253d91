/**
 * Helpers for dialing tests: an organization with a simulator configuration as its default, an agent,
 * a CSV upload, and a way to let simulated time pass. Time is the suite's TestClock (shared with the
 * dispatcher); after each step the test waits a little real time for the database work the step set
 * off. The server's tests use them too (`http/test/DispatchHarness.ts`).
 */
import type { Principal } from "@agentline/api/Authentication"
import { SqlClient } from "@effect/sql"
import { Effect, TestClock } from "effect"
import { Campaigns } from "../src/campaigns/Campaigns.js"
import { Dispatcher } from "../src/dispatcher/Dispatcher.js"
import { Organizations } from "../src/organizations/Organizations.js"
import { TelephonyConfigs } from "../src/telephony/TelephonyConfigs.js"
import { Uploads } from "../src/uploads/Uploads.js"
import { Workflows } from "../src/workflows/Workflows.js"
import { seedOrganization } from "./Harness.js"

export const plainDefinition = () => ({
  nodes: [
    { id: "start", type: "startCall", position: { x: 0, y: 0 }, data: { name: "Start", prompt: "Greet the caller" } },
    { id: "end", type: "endCall", position: { x: 0, y: 100 }, data: { name: "End", prompt: "Say goodbye" } }
  ],
  edges: [{ id: "e1", source: "start", target: "end", data: { label: "finish", condition: "Done" } }]
})

export interface SimulatorSettings {
  readonly default_outcome?: string
  readonly rules?: ReadonlyArray<{ readonly match: "prefix" | "exact"; readonly pattern: string; readonly outcomes: ReadonlyArray<string> }>
  readonly ring_seconds?: number
  readonly talk_seconds?: number
  readonly failure_rate?: number
  readonly seed?: number
  readonly webhook_secret?: string
}

/** Real time for the database work a clock step set off. */
export const settle = (millis = 15) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, millis)))

export interface DialingOptions {
  readonly limit?: number
  readonly simulator?: SimulatorSettings
}

/** A simulator configuration as the organization's default outbound, an agent, and its concurrent call limit when given. */
export const prepareDialing = <Org extends { readonly principal: Principal }>(org: Org, options: DialingOptions = {}) =>
  Effect.gen(function*() {
    if (options.limit !== undefined) {
      yield* (yield* Organizations).setConcurrentCallLimit(org.principal.organizationId, options.limit)
    }
    const configuration = yield* (yield* TelephonyConfigs).create(org.principal, {
      name: "simulated",
      config: { provider: "simulator", ring_seconds: 1, talk_seconds: 2, ...options.simulator },
      is_default_outbound: true
    })
    const agent = yield* (yield* Workflows).create(org.principal, { name: "Dialer", workflow_definition: plainDefinition() })
    return { ...org, configurationId: configuration.id, agent }
  }).pipe(Effect.orDie)

/** A new organization ready to dial (`prepareDialing`). */
export const setupDialing = (options: DialingOptions = {}) => Effect.flatMap(seedOrganization(), (org) => prepareDialing(org, options))

export const uploadCsv = (principal: Principal, csv: string) =>
  Effect.flatMap(Uploads, (uploads) => uploads.store(principal, "contacts.csv", new TextEncoder().encode(csv))).pipe(Effect.orDie)

export const numbers = (count: number, prefix = "+1415555") =>
  Array.from({ length: count }, (_, i) => `${prefix}${String(1000 + i).padStart(4, "0")}`)

export const csvOf = (phones: ReadonlyArray<string>, extra?: (i: number) => Record<string, string>) => {
  const columns = ["phone_number", ...Object.keys(extra?.(0) ?? {})]
  return [columns.join(","), ...phones.map((p, i) => [p, ...Object.values(extra?.(i) ?? {})].join(","))].join("\n") + "\n"
}

/** Steps the TestClock until the campaign reaches one of `states` (or fails the test). */
export const advanceUntil = <R = never>(
  principal: Principal,
  campaignId: number,
  states: ReadonlyArray<string>,
  options: { readonly stepMillis?: number; readonly maxSteps?: number; readonly onStep?: Effect.Effect<void, never, R> } = {}
) =>
  Effect.gen(function*() {
    const campaigns = yield* Campaigns
    for (let step = 0; step < (options.maxSteps ?? 2000); step++) {
      const campaign = yield* campaigns.get(principal, campaignId).pipe(Effect.orDie)
      if (states.includes(campaign.state)) return campaign
      yield* TestClock.adjust(options.stepMillis ?? 500)
      yield* settle()
      if (options.onStep) yield* options.onStep
    }
    return yield* Effect.dieMessage(`campaign ${campaignId} did not reach ${states.join("/")}`)
  })

/** Calls in progress right now, from the database (the truth across processes). */
export const activeCalls = (scope: { readonly organizationId: number } | { readonly campaignId: number }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = "campaignId" in scope
      ? yield* sql<{ n: number }>`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM call_attempts WHERE campaign_id = ${scope.campaignId} AND state IN ('claimed', 'dialing')`
      : yield* sql<{ n: number }>`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM call_attempts WHERE organization_id = ${scope.organizationId} AND state IN ('claimed', 'dialing')`
    return Number(rows[0]!.n)
  }).pipe(Effect.orDie)

/**
 * Calls in progress once they reach `expected`, or what they are after `timeoutMillis` of real time
 * (the dispatcher's database work after a start or resume takes real time, more on a loaded machine).
 */
export const activeCallsSettled = (
  scope: { readonly organizationId: number } | { readonly campaignId: number },
  expected: number,
  timeoutMillis = 3000
) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMillis
    let count = yield* activeCalls(scope)
    while (count !== expected && Date.now() < deadline) {
      yield* settle(20)
      count = yield* activeCalls(scope)
    }
    return count
  })

export const attemptsPerContact = (campaignId: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ phone_number: string; state: string; attempts: number; last_outcome: string | null }>`
      SELECT phone_number, state, CAST(attempts AS INTEGER) AS attempts, last_outcome FROM contacts WHERE campaign_id = ${campaignId} ORDER BY id`
  }).pipe(Effect.orDie)

export { Campaigns, Dispatcher }
