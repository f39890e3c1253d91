/**
 * The media part of the contract: an answered call's audio reaches the voice runtime as PCM and what
 * it plays reaches the caller; marks, clear, DTMF and hang-up work; media URLs open once.
 */
import { expect, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import WebSocket from "ws"
import { pcmLeg } from "./Carrier.js"
import { attemptOf, completedRun, type Fake, freshNumber, placeCall, runOf, setupCarrier } from "./Contract.js"
import { recordings, samplesOf, tone } from "./Loopback.js"

const sleep = (millis: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, millis)))

/** Polls `check` (real time) until it holds. */
export const eventually = (check: () => boolean, what: string, timeoutMillis = 10_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMillis
    while (!check()) {
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* sleep(20)
    }
  })

/** The HTTP status a WebSocket handshake to `url` gets (101 when it opens). */
export const handshake = (url: string) =>
  Effect.promise(() =>
    new Promise<number>((resolve) => {
      const socket = new WebSocket(url)
      socket.on("unexpected-response", (_request, response) => {
        resolve(response.statusCode ?? 0)
        socket.terminate()
      })
      socket.on("open", () => {
        resolve(101)
        socket.close()
      })
      socket.on("error", () => resolve(0))
    })
  )

/** The services the contract's tests run with: the application's and the fake's. */
export type ContractIt = Vitest.MethodsNonLive<any, true>

export const mediaTests = (it: ContractIt, fakeTag: typeof Fake) => {
  it.effect("media round trip: the caller's audio reaches the runtime as PCM and its echo reaches the caller; DTMF, marks, clear, hang-up", () =>
    Effect.gen(function*() {
      const { fake } = yield* fakeTag
      const setup = yield* setupCarrier()
      const to = freshNumber()
      fake.behave(to, "talking")
      const placed = yield* placeCall(setup, to)
      expect(placed.status).toBe(200)
      const attempt = yield* attemptOf(placed.body.workflow_run_id)
      const leg = pcmLeg(yield* Effect.promise(() => fake.media(attempt.providerCallId)))
      yield* eventually(() => recordings.has(attempt.providerCallId), "the runtime to get the call")
      const recording = recordings.get(attempt.providerCallId)!
      expect(recording.sampleRate).toBe(leg.sampleRate)
      // The callbacks so far are on the run already, while the call is in progress (a crash loses none).
      const during = yield* runOf(setup, placed.body.workflow_run_id)
      expect(during.is_completed).toBe(false)
      expect(during.logs.telephony_status_callbacks.length).toBeGreaterThan(0)
      expect(during.logs.telephony_status_callbacks.every((e: any) => e.call_id === attempt.providerCallId)).toBe(true)

      // Half a second of speech, echoed: what comes back is what was said (after the codec's quantization).
      const speech = tone(0.5, leg.sampleRate)
      leg.speak(speech)
      yield* eventually(() => leg.received().length >= speech.length, "the echo")
      const said = samplesOf(recording.incoming)
      expect(said.length).toBe(speech.length)
      expect(Math.max(...said.map((v, i) => Math.abs(v - speech[i]!)))).toBeLessThan(600)
      expect(leg.received().slice(0, speech.length)).toEqual(said)
      expect(samplesOf(recording.outgoing).slice(0, speech.length)).toEqual(said)

      // DTMF reaches the runtime; a mark comes back once what was played before it has been heard.
      leg.press("1")
      yield* eventually(() => recording.marks.includes("mark-1"), "mark-1 to come back")
      expect(leg.marks()).toContain("mark-1")
      expect(recording.digits).toEqual(["1"])

      // A minute of audio, a mark after it, then clear: the rest is dropped and the mark comes back at once.
      leg.press("8")
      leg.press("1")
      yield* eventually(() => recording.digits.length === 3, "the digits")
      leg.press("2")
      yield* eventually(() => recording.marks.includes("mark-2"), "mark-2 to come back on clear", 5_000)
      expect(leg.clears()).toBe(1)
      expect(leg.heard().length).toBeLessThan(leg.received().length)

      // The runtime hangs up: the call ends, the run is completed.
      leg.press("9")
      const run = yield* completedRun(setup, placed.body.workflow_run_id)
      expect(run.gathered_context.outcome).toBe("completed")
      yield* eventually(() => !leg.isOpen() && recording.ended, "the stream to close")
    }))

  it.effect("a media URL opens once; a wrong token is refused before the upgrade", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* fakeTag
      const setup = yield* setupCarrier()
      const to = freshNumber()
      fake.behave(to, "talking")
      const placed = yield* placeCall(setup, to)
      const attempt = yield* attemptOf(placed.body.workflow_run_id)
      const leg = yield* Effect.promise(() => fake.media(attempt.providerCallId))
      expect(yield* handshake(leg.url)).toBe(403)
      const wrong = leg.url.replace(/[^/]+$/, "A".repeat(43))
      expect(yield* handshake(wrong)).toBe(403)
      expect(yield* handshake(leg.url.replace(`/${carrier.provider}/`, "/simulator/"))).toBe(403)
      leg.press("9")
      yield* completedRun(setup, placed.body.workflow_run_id)
    }))
}
