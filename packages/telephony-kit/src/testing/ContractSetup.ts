/**
 * What the contract's tests share: the adapter under test served by the stand-in (`ContractHost`)
 * against its fake, fresh numbers, and waits on real time with a deadline (fakes play calls out on
 * wall-clock timers, scaled).
 */
import { FetchHttpClient } from "@effect/platform"
import type { Vitest } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import type { CallEvent, TelephonyProvider } from "../TelephonyProvider.js"
import type { CarrierFake, CarrierUnderTest, Scenario } from "./Carrier.js"
import * as ContractHost from "./ContractHost.js"

export interface ContractSubject {
  readonly carrier: CarrierUnderTest
  readonly adapter: TelephonyProvider
  readonly fake: CarrierFake
  readonly host: ContractHost.ContractHost
  /** The configuration body, as the carrier gives it. */
  readonly body: (options: { readonly machineDetection: boolean }) => Record<string, unknown>
  /** The configuration, decoded by the adapter's schema. */
  readonly config: (options: { readonly machineDetection: boolean }) => unknown
  /** The caller id the fake's account owns. */
  readonly callerId: string
}

export class Contract extends Context.Tag("@agentline/telephony-kit/Contract")<Contract, ContractSubject>() {}

/** The tests' `it`: real time, the subject in context. */
export type ContractIt = Vitest.MethodsNonLive<Contract, true>

let counter = 0
/** A fresh number for each use, so scenarios and routing keys never leak between tests. */
export const freshNumber = (prefix = "+1415777") => `${prefix}${String(1000 + (counter++ % 9000)).padStart(4, "0")}`

const sleep = (millis: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, millis)))

/** Polls `check` (real time) until it holds, or dies saying what it waited for. */
export const eventually = (check: () => boolean, what: string, timeoutMillis = 10_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMillis
    while (!check()) {
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* sleep(20)
    }
  })

/** Polls `effect` (real time) until it gives a value, or dies saying what it waited for. */
export const eventuallyValue = <A, E>(effect: Effect.Effect<A | undefined, E>, what: string, timeoutMillis = 10_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMillis
    for (;;) {
      const value = yield* effect
      if (value !== undefined) return value
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* sleep(20)
    }
  })

export type Ended = Extract<CallEvent, { readonly type: "ended" }>

/** The call's `ended` event, once it came. */
export const endOf = (call: ContractHost.HostedCall, timeoutMillis = 15_000) =>
  eventuallyValue(
    Effect.sync(() => call.events.find((e): e is Ended => e.type === "ended")),
    `call ${call.providerCallId ?? call.attemptId} to end`,
    timeoutMillis
  )

/** A call to a new number behaving as `scenario`, placed from the fake's caller id. */
export const placeTo = (
  scenario: Scenario,
  options: { readonly machineDetection?: boolean; readonly whenAnswered?: "stream" | "keep-open" } = {}
) =>
  Effect.gen(function*() {
    const { callerId, config, fake, host } = yield* Contract
    const to = freshNumber()
    fake.behave(to, scenario)
    const call = yield* host.place({
      to,
      from: callerId,
      config: config({ machineDetection: options.machineDetection ?? false }),
      whenAnswered: options.whenAnswered ?? "stream"
    })
    return { call, to }
  })

/** A call behaving as `scenario`, played to its end (all its callbacks posted): the call and its end. */
export const callAndWait = (scenario: Scenario, options: { readonly machineDetection?: boolean } = {}) =>
  Effect.gen(function*() {
    const { fake } = yield* Contract
    const { call, to } = yield* placeTo(scenario, options)
    const final = yield* Effect.promise(() => fake.ended(call.providerCallId!))
    const ended = yield* endOf(call)
    return { call, ended, final, to }
  })

/** The adapter served by the stand-in against the carrier's fake; the fake closes with the layer. */
export const layer = (carrier: CarrierUnderTest): Layer.Layer<Contract> =>
  Layer.scoped(
    Contract,
    Effect.gen(function*() {
      const host = yield* ContractHost.make
      const started = yield* Effect.acquireRelease(
        Effect.promise(() => carrier.start({ publicUrl: host.url })),
        (s) => Effect.promise(() => s.fake.close())
      )
      const adapter = yield* started.adapter.pipe(Effect.provide(FetchHttpClient.layer))
      const config = (options: { readonly machineDetection: boolean }) => ContractHost.decodeConfig(adapter, started.config(options))
      yield* host.serve(adapter, config({ machineDetection: false })).pipe(Effect.orDie)
      const callerId = freshNumber("+1415888")
      started.fake.own(callerId)
      return { carrier, adapter, fake: started.fake, host, body: started.config, config, callerId }
    })
  )
