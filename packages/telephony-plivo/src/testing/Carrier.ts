/**
 * The Plivo-compatible carriers (Plivo, Vobiz) under test: their adapter against their fake
 * (`FakeCarrier` in the carrier's dialect), for the contract suite (`test/Contract.test.ts` of each
 * package, and the server's suite).
 */
import type { CarrierUnderTest, FakeMediaLeg, Scenario } from "@agentline/telephony-kit/testing/Carrier"
import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import type { HttpClient } from "@effect/platform"
import { Deferred, Effect, Exit, type Scope as ScopeType, Scope } from "effect"
import { finalStatuses } from "../Callbacks.js"
import * as Plivo from "../Plivo.js"
import type * as FakeCarrier from "./FakeCarrier.js"
import * as FakePlivo from "./FakePlivo.js"

const callees: Record<Scenario, FakeCarrier.Callee> = {
  completed: "human",
  busy: "busy",
  no_answer: "no-answer",
  failed: "failed",
  voicemail: "machine",
  invalid: "invalid",
  talking: "talking"
}

/** Our answer asks Plivo for µ-law at 8 kHz. */
const mulaw = { encoding: "mulaw", sampleRate: 8000 } as const
const joined = (chunks: ReadonlyArray<Uint8Array>) => new Uint8Array(Buffer.concat(chunks))

export const plivoCompatible = (carrier: {
  readonly provider: string
  readonly account: FakeCarrier.Account
  readonly makeFake: (options: FakeCarrier.FakeOptions) => Effect.Effect<FakeCarrier.FakeCarrier, never, ScopeType.Scope>
  readonly makeAdapter: (apiUrl: string) => Effect.Effect<TelephonyProvider, never, HttpClient.HttpClient>
}): CarrierUnderTest => ({
  provider: carrier.provider,
  transfers: true,
  start: async () => {
    const { account } = carrier
    const scope = await Effect.runPromise(Scope.make())
    const behaviour = new Map<string, FakeCarrier.Callee>()
    const fake = await Effect.runPromise(Scope.extend(
      carrier.makeFake({
        accounts: [account],
        callee: (to) => behaviour.get(to) ?? "human",
        // The caller says nothing unless the suite makes them speak.
        stream: { audio: new Uint8Array(0) },
        // Long enough a ring for the suite to hang up a call that is still ringing.
        timings: { noAnswerMillis: 1_500 }
      }),
      scope
    ))
    const found = (id: string) => {
      const call = fake.call(id)
      if (call === undefined) throw new Error(`the fake has no call ${id}`)
      return call
    }
    const status = (s: number | "unreachable") => (s === "unreachable" ? 0 : s)
    return {
      adapter: carrier.makeAdapter(fake.url),
      config: ({ machineDetection }) => ({ auth_id: account.authId, auth_token: account.authToken, amd_enabled: machineDetection }),
      fake: {
        own: (number) => fake.own(number),
        behave: (number, scenario) => void behaviour.set(number, callees[scenario]),
        // Call lookups are left alone: the server settles finished streams with them in the background.
        failNext: (s, count) => fake.failNext(s, count, (method, path) => !(method === "GET" && path.includes("/Call/"))),
        // Plivo names no account in its inbound requests: the application's answer URL carries it (Vobiz too).
        route: (number, url) => fake.route(number, url === null ? null : `${url}?account_id=${account.authId}`),
        voiceUrl: (number) => fake.voiceUrl(number)?.replace(`?account_id=${account.authId}`, "") ?? null,
        placeInbound: async ({ from, signature, to }) => {
          const call = await Effect.runPromise(fake.placeInbound({ from, to, callee: "talking", ...(signature !== undefined ? { signature } : {}) }))
          const reply = await Effect.runPromise(Deferred.await(call.reply))
          const xml = reply.body
          return {
            providerCallId: call.callUuid,
            status: reply.status === "unreachable" ? 0 : reply.status,
            answer: xml.includes("<Stream") ? "stream" : xml.includes(`<Hangup reason="busy"`) ? "busy" : "refused",
            hangUp: () => void Effect.runFork(fake.hangUpCaller(call))
          }
        },
        media: async (id): Promise<FakeMediaLeg> => {
          const leg = await Effect.runPromise(Deferred.await(found(id).media))
          const record = () => leg.record.current
          return {
            format: mulaw,
            url: leg.url,
            speak: leg.speak,
            press: leg.press,
            received: () => joined(record().audioReceived),
            heard: () => joined(record().heard),
            marks: () => record().checkpointsPlayed,
            clears: () => record().clears,
            isOpen: () => record().closedBy === undefined
          }
        },
        ended: (id) => Effect.runPromise(Effect.map(fake.ended(found(id)), (c) => finalStatuses[c.hangup!.status] ?? c.hangup!.status)),
        resendCallbacks: (id, order) => Effect.runPromise(Effect.map(fake.resend(found(id), order), (all) => all.map(status))),
        forgeCallback: (id, kind) => Effect.runPromise(Effect.map(fake.forge(found(id), kind), status)),
        transferredTo: (id) => {
          const dialed = found(id).dialedTo
          return dialed === undefined || dialed.startsWith("sip") ? dialed : `+${dialed}`
        },
        // Bounded: under a loaded machine the fake's server close has outlived the suite's 120 s
        // teardown (sockets the adapter keeps alive); what matters is that the fake stops serving.
        close: () => Effect.runPromise(Scope.close(scope, Exit.void).pipe(Effect.timeout("15 seconds"), Effect.ignore))
      }
    }
  }
})

export const carrier: CarrierUnderTest = plivoCompatible({
  provider: "plivo",
  account: { authId: "MACONTRACTPLIVO00001", authToken: "contract-plivo-token" },
  makeFake: FakePlivo.make,
  makeAdapter: (apiUrl) => Plivo.make({ apiUrl })
})
