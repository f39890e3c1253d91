/**
 * The contract's media: an answered call's stream through the adapter's codec and the fake's media
 * leg, both ways, in the stream's own format (nothing transcoded): the caller's audio arrives exactly,
 * what is played reaches the caller, DTMF, marks, clear, and the hang-up that closes it.
 */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { frameBytes } from "../AudioFormat.js"
import type { MediaEvent } from "../Media.js"
import type { FakeMediaLeg } from "./Carrier.js"
import type { HostedMedia } from "./ContractHost.js"
import { Contract, type ContractIt, endOf, eventually, eventuallyValue, placeTo } from "./ContractSetup.js"

type Audio = Extract<MediaEvent, { readonly _tag: "Audio" }>

/** `length` bytes of a pattern no codec would make up (any bytes are audio in G.711 and L16 alike). */
export const pattern = (length: number, seed = 7) => Uint8Array.from({ length }, (_, i) => (i * 31 + seed) % 251)

const concat = (chunks: ReadonlyArray<Uint8Array>) => new Uint8Array(Buffer.concat(chunks.map((c) => Buffer.from(c))))

/** The audio the application received on a stream, as one buffer. */
export const incomingAudio = (media: HostedMedia) =>
  concat(media.events.filter((e): e is Audio => e._tag === "Audio").map((e) => e.audio.data))

/** The stream once started (its `Start` decoded). */
export const started = (media: () => HostedMedia | undefined) =>
  eventuallyValue(
    Effect.sync(() => {
      const found = media()
      return found?.start() !== undefined ? found : undefined
    }),
    "the media stream to start"
  )

/** The caller speaks and the application echoes every frame back: both directions carry the same bytes. */
export const roundTrip = (leg: FakeMediaLeg, media: HostedMedia) =>
  Effect.gen(function*() {
    const speech = pattern(frameBytes(leg.format, 500))
    const before = incomingAudio(media).length
    leg.speak(speech)
    yield* eventually(() => incomingAudio(media).length >= before + speech.length, "the caller's audio")
    expect(incomingAudio(media).slice(before, before + speech.length)).toEqual(speech)
    const frames = media.events.filter((e): e is Audio => e._tag === "Audio")
    for (const frame of frames) expect(frame.audio.format).toEqual(leg.format)
    const echoed = leg.received().length
    yield* Effect.forEach(frames, (frame) => media.send({ _tag: "Audio", audio: frame.audio }), { discard: true })
    yield* eventually(() => leg.received().length >= echoed + before + speech.length, "the echo")
    expect(leg.received().slice(echoed + before, echoed + before + speech.length)).toEqual(speech)
  })

export const mediaTests = (it: ContractIt) => {
  it.effect("media round trip in the stream's format: the caller's audio arrives exactly, played audio reaches the caller; DTMF, marks, clear, hang-up", () =>
    Effect.gen(function*() {
      const { adapter, config, fake } = yield* Contract
      const { call } = yield* placeTo("talking", { whenAnswered: "stream" })
      const leg = yield* Effect.promise(() => fake.media(call.providerCallId!))
      const media = yield* started(() => call.media[0])
      const start = media.start()!
      expect(start.format).toEqual(leg.format)
      if (start.providerCallId !== undefined) expect(start.providerCallId).toBe(call.providerCallId)
      yield* roundTrip(leg, media)

      leg.press("5")
      yield* eventually(() => media.events.some((e) => e._tag === "Dtmf" && e.digit === "5"), "the digit")

      // A mark comes back once what was played before it has been heard.
      yield* media.send({ _tag: "Mark", name: "contract-1" })
      yield* eventually(() => media.events.some((e) => e._tag === "Mark" && e.name === "contract-1"), "the mark to come back")
      expect(leg.marks()).toContain("contract-1")

      // Ten seconds of audio, a mark after it, then clear: the rest is never heard.
      const chunk = frameBytes(leg.format, 20)
      const long = pattern(frameBytes(leg.format, 10_000), 3)
      for (let offset = 0; offset < long.length; offset += chunk) {
        yield* media.send({ _tag: "Audio", audio: { format: leg.format, data: long.subarray(offset, offset + chunk) } })
      }
      yield* media.send({ _tag: "Mark", name: "contract-2" })
      yield* media.send({ _tag: "Clear" })
      yield* eventually(() => leg.clears() === 1, "the clear")
      expect(leg.heard().length).toBeLessThan(leg.received().length)

      // The application hangs up as Agentline's does: the call, then the stream.
      yield* adapter.calls!.hangUp({ config: config({ machineDetection: false }), providerCallId: call.providerCallId! })
      yield* media.send({ _tag: "Stop" }).pipe(Effect.ignore)
      media.close()
      expect((yield* endOf(call)).outcome).toBe("completed")
      yield* eventually(() => !leg.isOpen(), "the stream to close")
    }))
}
