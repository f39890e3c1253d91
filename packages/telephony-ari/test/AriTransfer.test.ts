/**
 * ARI transfers against the fake Asterisk: the target originated into the application for the caller
 * (ARI's request as sent), the caller ringing meanwhile, the agent's media channel hung up, the
 * answered target bridged with the caller; a result per Q.850 cause; whichever side hangs up, the other
 * goes too; a transfer the caller leaves before the answer.
 */
import type { TransferResult } from "@agentline/telephony-kit/Transfer"
import type { CallEvent } from "@agentline/telephony-kit/TelephonyProvider"
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import type * as Net from "node:net"
import { WebSocketServer } from "ws"
import { Ari } from "../src/index.js"
import { transferOutcome } from "../src/Transfer.js"
import * as FakeAri from "../src/testing/FakeAri.js"

const user = { name: "agentline", password: "ari-password-0123" }
const WS_CLIENT = "media_test"

const until = (check: () => boolean, what: string) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 10_000
    while (!check()) {
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
    }
  })

/** A media endpoint chan_websocket can dial: it accepts the connection and says nothing. */
const mediaServer = Effect.acquireRelease(
  Effect.async<WebSocketServer>((resume) => {
    const server = new WebSocketServer({ host: "127.0.0.1", port: 0, handleProtocols: () => "media" })
    server.once("listening", () => resume(Effect.succeed(server)))
  }),
  (server) => Effect.sync(() => server.close())
)

const setup = Effect.gen(function*() {
  const media = yield* mediaServer
  const port = (media.address() as Net.AddressInfo).port
  const fake = yield* Effect.acquireRelease(
    Effect.promise(() =>
      FakeAri.start({ user: user.name, password: user.password, secondMillis: 20, websocketClients: { [WS_CLIENT]: `ws://127.0.0.1:${port}/media` } })
    ),
    (f) => Effect.promise(() => f.close())
  )
  const adapter = yield* Ari.make({ apiUrl: fake.url }).pipe(Effect.provide(FetchHttpClient.layer))
  const config = Schema.decodeUnknownSync(Ari.AriConfig)({ ari_endpoint: fake.url, app_name: user.name, app_password: user.password, ws_client_name: WS_CLIENT })
  yield* adapter.connect!(config)
  /** A call answered and talking, its audio connected to the media endpoint. */
  const answeredCall = (to: string) =>
    Effect.gen(function*() {
      fake.behave(to, { answer: "human", ringSeconds: 0.5, talkSeconds: 3000 })
      const events: Array<CallEvent> = []
      const { providerCallId } = yield* adapter.calls!.place({
        config,
        to,
        from: "+14155550199",
        attemptId: Math.floor(Math.random() * 1e6) + 1,
        callbackUrl: "http://127.0.0.1/unused",
        answerUrl: "http://127.0.0.1/unused",
        whenAnswered: { _tag: "ConnectMediaStream", url: "wss://calls.example.com/api/v1/telephony/media/ari/tok123", parameters: {} },
        onEvent: (event) => Effect.sync(() => void events.push(event))
      })
      yield* until(() => fake.bridgedWith(providerCallId).includes(`${providerCallId}-media`), "the call's audio to be bridged")
      return { providerCallId, events, channel: fake.channel(providerCallId)! }
    })
  const transfer = (providerCallId: string, target: string, timeoutSeconds = 3) =>
    Effect.gen(function*() {
      const results: Array<TransferResult> = []
      yield* adapter.calls!.transfer!({
        config,
        providerCallId,
        target,
        from: "+14155550199",
        timeoutSeconds,
        mode: "cold",
        briefing: undefined,
        resultUrl: "http://127.0.0.1/unused",
        onResult: (result) => Effect.sync(() => void results.push(result))
      })
      return results
    })
  return { fake, answeredCall, transfer }
})

describe("ari transfers", () => {
  it("a target's Q.850 cause gives its result: 17 busy; 18-21 no_answer, as no telling cause once the ring time is over; the rest failed", () => {
    expect(transferOutcome(17, false)).toBe("busy")
    expect(transferOutcome(17, true)).toBe("busy")
    for (const cause of [18, 19, 20, 21]) expect(transferOutcome(cause, false)).toBe("no_answer")
    for (const cause of [undefined, 0, 16]) {
      expect(transferOutcome(cause, false)).toBe("failed")
      expect(transferOutcome(cause, true)).toBe("no_answer")
    }
    for (const cause of [1, 3, 27, 28, 34, 38, 41, 127]) {
      expect(transferOutcome(cause, false)).toBe("failed")
      expect(transferOutcome(cause, true)).toBe("failed")
    }
  })

  it.live("answered: the target originated for the caller, ringing meanwhile, the agent's media hung up, caller and target bridged; the target hangs up, the caller goes too", () =>
    Effect.scoped(Effect.gen(function*() {
      const { answeredCall, fake, transfer } = yield* setup
      const { channel, events, providerCallId } = yield* answeredCall("+14155550101")
      fake.behave("+14155550300", { answer: "human", ringSeconds: 5, talkSeconds: 60 })
      const results = yield* transfer(providerCallId, "+14155550300", 20)
      const [dialed] = fake.originatedFor(providerCallId)
      expect(dialed).toMatchObject({ endpoint: "PJSIP/+14155550300", app: user.name, args: [`transfer_of=${providerCallId}`], number: "+14155550300" })
      expect(channel.ringing).toBe(true)
      yield* until(() => fake.channel(`${providerCallId}-media`)?.destroyed === true, "the agent's media channel to be hung up")
      yield* until(() => results.length > 0, "the result")
      expect(results).toEqual([{ outcome: "answered", at: expect.any(Number), cause: "StasisStart (channel Up)" }])
      expect(fake.bridgedWith(providerCallId)).toEqual([dialed!.id])
      expect(channel.ringing).toBe(false)
      // The person hangs up: the caller's call ends, answered.
      expect(yield* Effect.promise(() => channel.ended)).toBe("completed")
      yield* until(() => events.some((e) => e.type === "ended"), "the call's end")
      expect(results).toHaveLength(1)
    })))

  it.live("busy, then a call that is over: the caller's call is hung up and the transfer reported busy once; a second transfer is refused", () =>
    Effect.scoped(Effect.gen(function*() {
      const { answeredCall, fake, transfer } = yield* setup
      const { channel, providerCallId } = yield* answeredCall("+14155550102")
      fake.behave("+14155550301", { answer: "busy", ringSeconds: 0.5 })
      const results = yield* transfer(providerCallId, "+14155550301")
      expect(yield* Effect.promise(() => channel.ended)).toBe("completed")
      expect(results).toEqual([{ outcome: "busy", at: expect.any(Number), cause: "17 User busy" }])
      const again = yield* Effect.flip(transfer(providerCallId, "+14155550301"))
      expect(again.retryable).toBe(false)
      expect(fake.originatedFor(providerCallId)).toHaveLength(1)
    })))

  it.live("the caller hangs up while the target rings: the target's channel is hung up, the transfer failed", () =>
    Effect.scoped(Effect.gen(function*() {
      const { answeredCall, fake, transfer } = yield* setup
      const { channel, providerCallId } = yield* answeredCall("+14155550103")
      fake.behave("+14155550302", { answer: "human", ringSeconds: 3000 })
      const results = yield* transfer(providerCallId, "+14155550302", 60)
      const [dialed] = fake.originatedFor(providerCallId)
      yield* until(() => dialed?.state === "Ringing", "the target to ring")
      channel.hangUp()
      expect(yield* Effect.promise(() => dialed!.ended)).toBe("canceled")
      expect(results).toEqual([{ outcome: "failed", at: expect.any(Number), cause: "the caller hung up before the target answered" }])
    })))

  it.live("a target Asterisk cannot dial: refused, not retryable; the call keeps its audio and may be transferred again", () =>
    Effect.scoped(Effect.gen(function*() {
      const { answeredCall, fake, transfer } = yield* setup
      const { providerCallId } = yield* answeredCall("+14155550104")
      fake.behave("+14155550303", { answer: "invalid" })
      const refused = yield* Effect.flip(transfer(providerCallId, "+14155550303"))
      expect(refused.retryable).toBe(false)
      expect(refused.message).toContain("Allocation failed")
      expect(fake.channel(`${providerCallId}-media`)?.destroyed).toBe(false)
      fake.behave("+14155550304", { answer: "no-answer" })
      const results = yield* transfer(providerCallId, "+14155550304", 2)
      yield* until(() => results.length > 0, "the result")
      expect(results).toEqual([{ outcome: "no_answer", at: expect.any(Number), cause: "19 No answer" }])
    })))
})
