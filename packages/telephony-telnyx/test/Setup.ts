/** The adapter against a fresh fake Telnyx and a stand-in server, for one test (scoped). */
import { FetchHttpClient } from "@effect/platform"
import { Effect } from "effect"
import { decodeConfig, make, type TelnyxConfig, type TelnyxProvider } from "../src/Telnyx.js"
import * as FakeTelnyx from "../src/testing/FakeTelnyx.js"
import { type Receiver, startReceiver } from "./Harness.js"

export const API_KEY = "KEY0123456789ABCDEF_secret"
export const CALLER = "+13125550100"

export interface Setup {
  readonly fake: FakeTelnyx.FakeTelnyx
  readonly application: FakeTelnyx.Application
  readonly adapter: TelnyxProvider
  readonly receiver: Receiver
  config: TelnyxConfig
}

export const setup = (options: { readonly amd?: boolean; readonly secondMillis?: number } = {}) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<Setup> => {
      const fake = await FakeTelnyx.start({ apiKey: API_KEY, secondMillis: options.secondMillis ?? 20 })
      const application = fake.addApplication("agentline")
      fake.addNumber(CALLER, application.id)
      const adapter = await Effect.runPromise(make({ apiUrl: fake.url }).pipe(Effect.provide(FetchHttpClient.layer)))
      const state: Setup = {
        fake,
        application,
        adapter,
        receiver: undefined as unknown as Receiver,
        config: decodeConfig({ api_key: API_KEY, connection_id: application.id, webhook_public_key: fake.publicKey, amd_enabled: options.amd ?? false })
      }
      ;(state as { receiver: Receiver }).receiver = await startReceiver(adapter, () => state.config)
      return state
    }),
    (s) => Effect.promise(async () => {
      await s.fake.close()
      await s.receiver.close()
    })
  )

let counter = 0
export const freshNumber = () => `+1415555${String(1000 + (counter++ % 9000))}`

/** Places a call to `to` through the adapter, status webhooks to the stand-in server. */
export const place = (s: Setup, to: string, options: { readonly stream?: boolean; readonly attemptId?: number } = {}) => {
  const attemptId = options.attemptId ?? counter++
  return s.adapter.calls.place({
    config: s.config,
    to,
    from: CALLER,
    attemptId,
    callbackUrl: `${s.receiver.url}/status/${attemptId}`,
    answerUrl: `${s.receiver.url}/answer/${attemptId}`,
    whenAnswered: options.stream === true
      ? { _tag: "ConnectMediaStream", url: `${s.receiver.mediaUrl}?token=t-${attemptId}`, parameters: { attempt_id: String(attemptId) } }
      : { _tag: "KeepOpen" },
    onEvent: () => Effect.void
  })
}

/** Waits (real time) for the fake to play the call out: its hang-up cause. */
export const ended = (s: Setup, callControlId: string) => Effect.promise(() => s.fake.call(callControlId)!.ended)

export const eventsOf = (s: Setup, callControlId: string) =>
  s.receiver.events.filter((e) => e.providerCallId === callControlId).map((e) => (e.type === "ended" ? `ended:${e.outcome}` : e.type))
