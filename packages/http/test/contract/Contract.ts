/**
 * The contract every calling adapter keeps through the whole server, against the provider's fake, on
 * SQLite and PostgreSQL: what the server adds to the port's behaviour (which each adapter checks on its
 * own with `runContract` of `@agentline/telephony-kit`): runs and their logs, the answer route's
 * verdict on machines, refusals on the run, callbacks at the server's routes, recovery through
 * `OutboundRouting`, retries, media through `CallAudio`, inbound routing, a campaign, transfers (cold,
 * warm where declared, refused where not: `ContractTransfer.ts`), credentials in logs.
 * `runServerContract(carrier)` registers the suites; a provider's file calls it with the carrier object
 * of its package (`@agentline/telephony-<provider>/testing/Carrier`). docs/telephony-adapters.md says
 * which check runs where.
 */
import { OutboundRouting, PROVIDER_RETRIES } from "@agentline/core/telephony/OutboundRouting"
import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import { FetchHttpClient } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { call, dialects, seedOrganization } from "../Harness.js"
import type { CarrierFake, CarrierUnderTest, Scenario, Started } from "./Carrier.js"
import { campaignTests } from "./ContractCampaign.js"
import { inboundTests } from "./ContractInbound.js"
import { mediaTests } from "./ContractMedia.js"
import { transferTests } from "./ContractTransfer.js"
import { freePort, liveApp, logLines } from "./LiveServer.js"
import { loopback } from "./Loopback.js"

/** The carrier's fake and its adapter (made), as the server suite sees them. */
export interface Served extends Omit<Started, "adapter"> {
  readonly adapter: TelephonyProvider
  readonly carrier: CarrierUnderTest
  readonly publicUrl: string
}

export class Fake extends Context.Tag("contract/Fake")<Fake, Served>() {}

const sleep = (millis: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, millis)))

const definition = {
  nodes: [
    { id: "start", type: "startCall", position: { x: 0, y: 0 }, data: { name: "Start", prompt: "Greet the caller" } },
    { id: "end", type: "endCall", position: { x: 0, y: 100 }, data: { name: "End", prompt: "Say goodbye" } }
  ],
  edges: [{ id: "e1", source: "start", target: "end", data: { label: "finish", condition: "Done" } }]
}

/** An organization calling through the carrier: configuration, its caller id, an agent. */
export const setupCarrier = (options: { readonly machineDetection?: boolean } = {}) =>
  Effect.gen(function*() {
    const { carrier, config, fake } = yield* Fake
    const org = yield* seedOrganization()
    // Numbers are unique per provider account across organizations: each organization gets its own.
    const callerId = freshNumber("+1415888")
    fake.own(callerId)
    const created = yield* call("POST", "/api/v1/organizations/telephony-configs", {
      apiKey: org.apiKey,
      body: { name: carrier.provider, config: { provider: carrier.provider, ...config({ machineDetection: options.machineDetection ?? false }) }, is_default_outbound: true }
    })
    expect(created.status).toBe(200)
    const number = yield* call("POST", `/api/v1/organizations/telephony-configs/${created.body.id}/phone-numbers`, {
      apiKey: org.apiKey,
      body: { address: callerId, is_default_caller_id: true }
    })
    expect(number.status).toBe(200)
    const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
      apiKey: org.apiKey,
      body: { name: "Contract agent", workflow_definition: definition }
    })
    expect(agent.status).toBe(200)
    return { ...org, callerId, configurationId: created.body.id as number, agent: agent.body as { id: number; workflow_uuid: string } }
  })

type Setup = Effect.Effect.Success<ReturnType<typeof setupCarrier>>

/** A single call through the API: its run id, or the refusal. */
export const placeCall = (setup: Setup, to: string) =>
  call("POST", `/api/v1/public/agent/workflow/${setup.agent.workflow_uuid}`, { apiKey: setup.apiKey, body: { phone_number: to } })

export const runOf = (setup: Setup, runId: number) =>
  Effect.map(call("GET", `/api/v1/workflow/${setup.agent.id}/runs/${runId}`, { apiKey: setup.apiKey }), (r) => r.body)

/** Waits (real time) until the run is completed. */
export const completedRun = (setup: Setup, runId: number, timeoutMillis = 15_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMillis
    while (Date.now() < deadline) {
      const run = yield* runOf(setup, runId)
      if (run.is_completed === true) return run
      yield* sleep(50)
    }
    return yield* Effect.dieMessage(`run ${runId} did not complete within ${timeoutMillis} ms`)
  })

export const attemptOf = (runId: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: number; provider_call_id: string | null }>`SELECT id, provider_call_id FROM call_attempts WHERE run_id = ${runId}`
    return { id: Number(row!.id), providerCallId: row!.provider_call_id! }
  }).pipe(Effect.orDie)

export const latestRunId = (workflowId: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: number }>`SELECT id FROM workflow_runs WHERE workflow_id = ${workflowId} ORDER BY id DESC LIMIT 1`
    return Number(row!.id)
  }).pipe(Effect.orDie)

const fakeOf = Effect.map(Fake, (f): CarrierFake => f.fake)

let numberCounter = 0
/** A fresh number for each use, so scenarios and routing keys never leak between tests. */
export const freshNumber = (prefix = "+1415777") => `${prefix}${String(1000 + (numberCounter++ % 9000)).padStart(4, "0")}`

/** A call to a new number behaving as `scenario`, played to its end: the run and the attempt. */
export const callAndWait = (setup: Setup, scenario: Scenario) =>
  Effect.gen(function*() {
    const fake = yield* fakeOf
    const to = freshNumber()
    fake.behave(to, scenario)
    const placed = yield* placeCall(setup, to)
    expect(placed.status).toBe(200)
    const runId = placed.body.workflow_run_id as number
    const attempt = yield* attemptOf(runId)
    yield* Effect.promise(() => fake.ended(attempt.providerCallId))
    return { run: yield* completedRun(setup, runId), attempt, runId }
  })

/** The status log entries that were applied (not marked as coming after the end). */
export const applied = (run: any): ReadonlyArray<unknown> => (run.logs?.telephony_status_callbacks ?? []).filter((e: any) => e.ignored !== true)

export const statuses = (run: any): ReadonlyArray<string> => (run.logs?.telephony_status_callbacks ?? []).map((e: any) => e.status)

export const contractLayer = (carrier: CarrierUnderTest, dialect: "sqlite" | "pg") =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const port = yield* freePort
    const publicUrl = `http://127.0.0.1:${port}`
    const started = yield* Effect.acquireRelease(Effect.promise(() => carrier.start({ publicUrl })), (s) => Effect.promise(() => s.fake.close()))
    const adapter = yield* started.adapter.pipe(Effect.provide(FetchHttpClient.layer))
    return liveApp(dialect, port, [adapter], loopback).pipe(Layer.provideMerge(Layer.succeed(Fake, { ...started, adapter, carrier, publicUrl })))
  }))

export const runServerContract = (carrier: CarrierUnderTest) => {
  for (const dialect of dialects) {
    layer(contractLayer(carrier, dialect), { timeout: "120 seconds", excludeTestServices: true })(`${carrier.provider} contract [${dialect}]`, (it) => {
      // The port's outcomes are the adapter's own contract; here the run of an answered and an unanswered call.
      const outcomes: ReadonlyArray<Scenario> = ["completed", "busy"]
      for (const scenario of outcomes) {
        it.effect(`a callee that ends ${scenario} ends the run ${scenario}, with every callback in its log`, () =>
          Effect.gen(function*() {
            const setup = yield* setupCarrier()
            const { run } = yield* callAndWait(setup, scenario)
            expect(run.gathered_context.outcome).toBe(scenario)
            expect(run.mode).toBe(carrier.provider)
            expect(statuses(run).at(-1)).toBe("ended")
            if (scenario === "completed") {
              expect(statuses(run)).toEqual(expect.arrayContaining([...(carrier.answeredProgress ?? ["ringing", "answered", "ended"])]))
              expect(run.usage_info.call_duration_seconds).toBeGreaterThan(0)
            }
          }))
      }

      if (carrier.machineDetection !== false) {
        it.effect("with machine detection, an answering machine ends the run voicemail; a person still completes", () =>
          Effect.gen(function*() {
            const setup = yield* setupCarrier({ machineDetection: true })
            expect((yield* callAndWait(setup, "voicemail")).run.gathered_context.outcome).toBe("voicemail")
            expect((yield* callAndWait(setup, "completed")).run.gathered_context.outcome).toBe("completed")
          }))
      } else {
        it.effect("without machine detection, the configuration offers none", () =>
          Effect.gen(function*() {
            const { adapter } = yield* Fake
            expect(adapter.fields.map((f) => f.name).filter((name) => /amd|machine/.test(name))).toEqual([])
          }))
      }

      it.effect("a number the provider refuses fails the call at once, with the provider's message on the run", () =>
        Effect.gen(function*() {
          const setup = yield* setupCarrier()
          const fake = yield* fakeOf
          const to = freshNumber()
          fake.behave(to, "invalid")
          const placed = yield* placeCall(setup, to)
          expect(placed.status).toBe(400)
          const run = yield* completedRun(setup, yield* latestRunId(setup.agent.id))
          expect(run.gathered_context.outcome).toBe("failed")
          expect(run.gathered_context.error).toContain(to)
          expect(run.logs.telephony_status_callbacks.at(-1)).toMatchObject({ status: "ended", error: run.gathered_context.error })
        }))

      it.effect("callbacks with a wrong or missing signature are refused and change nothing; a replayed one changes nothing", () =>
        Effect.gen(function*() {
          const setup = yield* setupCarrier()
          const fake = yield* fakeOf
          const { attempt, run, runId } = yield* callAndWait(setup, "busy")
          expect(yield* Effect.promise(() => fake.forgeCallback(attempt.providerCallId, "wrong"))).toBe(401)
          expect(yield* Effect.promise(() => fake.forgeCallback(attempt.providerCallId, "missing"))).toBe(401)
          expect(yield* runOf(setup, runId)).toEqual(run)
          const replayed = yield* Effect.promise(() => fake.resendCallbacks(attempt.providerCallId, "same"))
          expect(replayed.every((status) => status === 200)).toBe(true)
          const after = yield* runOf(setup, runId)
          expect(after.gathered_context).toEqual(run.gathered_context)
          expect(applied(after)).toEqual(applied(run))
        }))

      it.effect("duplicate and out-of-order callbacks never reopen or change a finished call", () =>
        Effect.gen(function*() {
          const setup = yield* setupCarrier()
          const fake = yield* fakeOf
          const { attempt, run, runId } = yield* callAndWait(setup, "completed")
          const statusesBack = yield* Effect.promise(() => fake.resendCallbacks(attempt.providerCallId, "reverse"))
          expect(statusesBack.every((status) => status === 200)).toBe(true)
          const after = yield* runOf(setup, runId)
          expect(after.gathered_context).toEqual(run.gathered_context)
          expect(after.usage_info).toEqual(run.usage_info)
          // Every callback is on the run's log, timestamped; those after the end are marked, not applied.
          expect(applied(after)).toEqual(applied(run))
          const late = after.logs.telephony_status_callbacks.filter((e: any) => e.ignored === true)
          // (An answer request that came after the end is among them too, when the callee hung up first.)
          expect(late.length).toBeGreaterThanOrEqual(statusesBack.length)
          for (const entry of late) expect(Number.isNaN(Date.parse(entry.timestamp))).toBe(false)
          // A progress report (ringing, answered...) after the end is among them.
          expect(late.some((e: any) => e.status !== "ended")).toBe(true)
        }))

      it.effect("hang-up ends a ringing call canceled (or says it cannot); `get` tells a call in progress from one that ended, as recovery needs", () =>
        Effect.gen(function*() {
          const setup = yield* setupCarrier()
          const fake = yield* fakeOf
          const to = freshNumber()
          fake.behave(to, "no_answer")
          const placed = yield* placeCall(setup, to)
          expect(placed.status).toBe(200)
          const attempt = yield* attemptOf(placed.body.workflow_run_id)
          const route = yield* (yield* OutboundRouting).resolve(setup.principal.organizationId, setup.configurationId)
          // Just placed, a call may still be queued at the carrier for a moment (known there by another
          // id), which `get` rightly reports as Unknown: ask until the carrier has it ringing.
          let first = yield* route.calls.get(attempt.providerCallId)
          for (let tries = 0; first._tag === "Unknown" && tries < 20; tries++) {
            yield* sleep(50)
            first = yield* route.calls.get(attempt.providerCallId)
          }
          expect(first._tag).toBe("InProgress")
          if (carrier.endsRingingCalls === false) {
            // The provider cannot: the adapter says so, and the call rings on until the callee's end.
            const cannot = yield* Effect.flip(route.calls.hangUp(attempt.providerCallId))
            expect(cannot.retryable).toBe(false)
            yield* Effect.promise(() => fake.ended(attempt.providerCallId))
            expect((yield* completedRun(setup, placed.body.workflow_run_id)).gathered_context.outcome).toBe("no_answer")
            yield* route.calls.hangUp(attempt.providerCallId)
            return
          }
          yield* route.calls.hangUp(attempt.providerCallId)
          expect(yield* Effect.promise(() => fake.ended(attempt.providerCallId))).toBe("canceled")
          const run = yield* completedRun(setup, placed.body.workflow_run_id)
          expect(run.gathered_context.outcome).toBe("canceled")
          expect(yield* route.calls.get(attempt.providerCallId)).toMatchObject({ _tag: "Ended", outcome: "canceled" })
          // Hanging up a call that is over is not an error.
          yield* route.calls.hangUp(attempt.providerCallId)
          expect((yield* route.calls.get("CA0000000000000000000000000000dead"))._tag).toBe("Unknown")
        }))

      mediaTests(it, Fake)
      inboundTests(it, Fake)
      campaignTests(it, Fake)
      transferTests(it, Fake)

      it.effect("credentials never appear in the logs or on runs, failures included", () =>
        Effect.gen(function*() {
          const { adapter, config, fake } = yield* Fake
          const setup = yield* setupCarrier()
          fake.failNext(500, PROVIDER_RETRIES + 1)
          yield* placeCall(setup, freshNumber())
          const to = freshNumber()
          fake.behave(to, "invalid")
          yield* placeCall(setup, to)
          yield* callAndWait(setup, "failed")
          const credentials = adapter.fields.filter((f) => f.sensitive)
            .map((f) => config({ machineDetection: false })[f.name])
            .filter((v): v is string => typeof v === "string" && v.length >= 6)
          expect(credentials.length).toBeGreaterThan(0)
          const runs = yield* call("GET", `/api/v1/workflow/${setup.agent.id}/runs`, { apiKey: setup.apiKey })
          const seen = JSON.stringify(runs.body) + logLines.join("\n")
          expect(logLines.length).toBeGreaterThan(0)
          for (const secret of credentials) expect(seen).not.toContain(secret)
        }))

      it.effect("429 and 5xx from the provider are retried; past the retries the call fails and says so", () =>
        Effect.gen(function*() {
          const setup = yield* setupCarrier()
          const fake = yield* fakeOf
          fake.failNext(503, 1)
          fake.failNext(429, 1)
          expect((yield* callAndWait(setup, "completed")).run.gathered_context.outcome).toBe("completed")

          fake.failNext(500, PROVIDER_RETRIES + 1)
          const placed = yield* placeCall(setup, freshNumber())
          expect(placed.status).toBe(400)
          const run = yield* completedRun(setup, yield* latestRunId(setup.agent.id))
          expect(run.gathered_context.outcome).toBe("failed")
          expect(run.gathered_context.error).toContain("gave up after")
        }))
    })
  }
}
