import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { PublicUrlsShape } from "../../src/PublicUrls.js"
import { bindCalls } from "../../src/telephony/OutboundRouting.js"
import { type PlaceCall, TelephonyError, type TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"

const urls: PublicUrlsShape = {
  telephonyCallback: ({ attemptId, provider }) => `https://calls.example.com/cb/${provider}/${attemptId}`,
  telephonyAnswer: ({ attemptId, provider }) => `https://calls.example.com/answer/${provider}/${attemptId}`,
  contactsUpload: () => "unused",
  recordingUpload: () => "unused",
  run: () => "unused",
  runArtifact: () => "unused",
  campaignSource: () => "unused"
}

/** A provider that records what it was asked to place. */
const recording = () => {
  const placed: Array<PlaceCall<{ readonly token: string }>> = []
  const provider: TelephonyProvider<{ readonly token: string }> = {
    name: "rec",
    displayName: "Recorder",
    configSchema: undefined as never,
    fields: [],
    accountId: () => undefined,
    calls: {
      place: (input) => Effect.sync(() => (placed.push(input), { providerCallId: `call-${input.attemptId}` })),
      hangUp: () => Effect.void,
      get: () => Effect.succeed({ _tag: "InProgress" })
    }
  }
  return { placed, provider }
}

const place = { to: "+14155550100", from: undefined, attemptId: 9, onEvent: () => Effect.void }

describe("a route's bound calls", () => {
  it.effect("fill in the credentials, the callback URL and what to do once answered", () =>
    Effect.gen(function*() {
      const { placed, provider } = recording()
      const calls = bindCalls(provider, { token: "t" }, urls)
      expect(yield* calls.place(place)).toEqual({ providerCallId: "call-9" })
      expect(placed[0]).toMatchObject({
        config: { token: "t" },
        to: "+14155550100",
        attemptId: 9,
        callbackUrl: "https://calls.example.com/cb/rec/9",
        // No media route in this server: the call is kept open without audio.
        whenAnswered: { _tag: "KeepOpen" }
      })
      const withMedia = bindCalls(
        { ...provider, media: { open: Effect.die("unused") } },
        { token: "t" },
        { ...urls, mediaStream: ({ token }) => `wss://calls.example.com/media/${token}` },
        Effect.void,
        (attemptId) => Effect.succeed(`token-of-${attemptId}`)
      )
      yield* withMedia.place(place)
      expect(placed[1]!.whenAnswered).toEqual({
        _tag: "ConnectMediaStream",
        url: "wss://calls.example.com/media/token-of-9",
        parameters: { attempt_id: "9" }
      })
    }))

  it.effect("a configuration-only provider refuses calls (not retryable) and never guesses a call's fate", () =>
    Effect.gen(function*() {
      const { provider } = recording()
      const { calls: _, ...configOnly } = provider
      const calls = bindCalls(configOnly, { token: "t" }, urls)
      const refused = yield* Effect.flip(calls.place(place))
      expect(refused).toMatchObject({
        provider: "rec",
        retryable: false,
        message: "outbound calling through rec is not available in this build: the adapter implements configuration only"
      })
      expect((yield* Effect.flip(calls.hangUp("x"))).retryable).toBe(false)
      expect((yield* calls.get("x"))._tag).toBe("Unknown")
    }))

  it.effect("the provider's connection is opened before any call; without it a call's fate is Unknown", () =>
    Effect.gen(function*() {
      const { placed, provider } = recording()
      const down = Effect.fail(new TelephonyError({ provider: "rec", message: "events socket refused", retryable: true }))
      const calls = bindCalls(provider, { token: "t" }, urls, down)
      expect((yield* Effect.flip(calls.place(place))).message).toBe("events socket refused")
      expect(placed).toHaveLength(0)
      expect(yield* calls.get("x")).toEqual({ _tag: "Unknown", reason: "rec is not reachable: events socket refused" })
      let opened = 0
      const up = bindCalls(provider, { token: "t" }, urls, Effect.sync(() => void opened++))
      yield* up.place(place)
      expect(opened).toBe(1)
      expect(placed).toHaveLength(1)
    }))
})
