/** The media stream and inbound calls, end to end against the fake Telnyx. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { Telnyx } from "../src/index.js"
import { waitFor } from "./Harness.js"
import { CALLER, ended, eventsOf, freshNumber, place, setup } from "./Setup.js"

const mulaw = (bytes: number, value: number) => new Uint8Array(bytes).fill(value)

describe("telnyx media streams against the fake Telnyx", () => {
  it.scopedLive("streams both ways: caller audio in, our audio out, marks when played, clear drops the rest, DTMF, stop", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const to = freshNumber()
      s.fake.behave(to, { answer: "human", ringSeconds: 0.1, talkSeconds: 500 })
      const { providerCallId } = yield* place(s, to, { stream: true, attemptId: 77 })
      const connection = yield* Effect.promise(() => waitFor("the media connection", () => s.receiver.media[0]))
      const start = yield* Effect.promise(() => waitFor("start", () => connection.events.find((e) => e._tag === "Start")))
      expect(start).toEqual({
        _tag: "Start",
        streamId: s.fake.call(providerCallId)!.media!.streamId,
        providerCallId,
        format: { encoding: "mulaw", sampleRate: 8000 },
        parameters: { attempt_id: "77" }
      })
      const leg = s.fake.call(providerCallId)!.media!

      // The caller speaks: 100 ms in five 20 ms frames.
      leg.speak(mulaw(800, 0x11))
      yield* Effect.promise(() => waitFor("caller audio", () => connection.events.filter((e) => e._tag === "Audio").length >= 5 || undefined))
      const heard = connection.events.flatMap((e) => (e._tag === "Audio" ? [...e.audio.data] : []))
      expect(heard).toEqual([...mulaw(800, 0x11)])

      // We answer: 60 ms of audio and a mark; the mark comes back once the audio has played.
      const send = (command: Parameters<typeof connection.session.encode>[0]) =>
        Effect.flatMap(connection.session.encode(command), (frames) => Effect.sync(() => connection.send(frames)))
      yield* send({ _tag: "Audio", audio: { format: start.format, data: mulaw(480, 0x22) } })
      yield* send({ _tag: "Mark", name: "greeting" })
      yield* Effect.promise(() => waitFor("the mark", () => connection.events.find((e) => e._tag === "Mark")))
      expect([...leg.played()]).toEqual([...mulaw(480, 0x22)])
      // Our own audio came back on the outbound track (both_tracks) and was not taken for the caller's.
      expect(connection.events.filter((e) => e._tag === "Audio")).toHaveLength(5)

      // Barge-in: a long reply is cleared; its mark comes back at once, unplayed audio is dropped.
      yield* send({ _tag: "Audio", audio: { format: start.format, data: mulaw(16_000, 0x33) } })
      yield* send({ _tag: "Mark", name: "long-reply" })
      yield* send({ _tag: "Clear" })
      yield* Effect.promise(() => waitFor("the cleared mark", () => connection.events.filter((e) => e._tag === "Mark").length === 2 || undefined))
      expect(leg.clears()).toBe(1)
      expect(leg.played().length).toBeLessThan(480 + 16_000)
      expect(leg.received().length).toBe(480 + 16_000)

      // A mark with nothing queued is reached at once.
      yield* send({ _tag: "Mark", name: "idle" })
      yield* Effect.promise(() => waitFor("the idle mark", () => connection.events.filter((e) => e._tag === "Mark").length === 3 || undefined))
      expect(leg.marks()).toEqual(["greeting", "long-reply", "idle"])

      leg.press("5")
      yield* Effect.promise(() => waitFor("dtmf", () => connection.events.find((e) => e._tag === "Dtmf")))
      expect(connection.events.filter((e) => e._tag === "Dtmf")).toEqual([{ _tag: "Dtmf", digit: "5" }])
      expect(leg.errors()).toBe(0)

      yield* s.adapter.calls.hangUp({ config: s.config, providerCallId })
      yield* ended(s, providerCallId)
      yield* Effect.promise(() => connection.closed)
      expect(connection.events.at(-1)).toEqual({ _tag: "Stop" })
      const types = s.receiver.received.map((r) => r.body.data.event_type)
      expect(types).toEqual(["call.initiated", "call.answered", "streaming.started", "streaming.stopped", "call.hangup"])
    }))

  it.scopedLive("a call that ends before the answer opens the stream and closes it without a start", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const to = freshNumber()
      s.fake.behave(to, { answer: "busy" })
      const { providerCallId } = yield* place(s, to, { stream: true })
      yield* ended(s, providerCallId)
      const connection = yield* Effect.promise(() => waitFor("the media connection", () => s.receiver.media[0]))
      yield* Effect.promise(() => connection.closed)
      expect(connection.events).toEqual([])
      expect(eventsOf(s, providerCallId)).toEqual(["initiated", "ended:busy"])
    }))

  it.scopedLive("the fake answers a frame it cannot read with an error frame, which the codec logs and skips", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const to = freshNumber()
      s.fake.behave(to, { answer: "human", ringSeconds: 0.1, talkSeconds: 500 })
      const { providerCallId } = yield* place(s, to, { stream: true })
      const connection = yield* Effect.promise(() => waitFor("the media connection", () => s.receiver.media[0]))
      yield* Effect.promise(() => waitFor("start", () => connection.events.find((e) => e._tag === "Start")))
      const before = connection.events.length
      connection.send([{ _tag: "Text", text: JSON.stringify({ event: "media", media: { payload: "not base64!" } }) }])
      const leg = s.fake.call(providerCallId)!.media!
      yield* Effect.promise(() => waitFor("the error frame", () => leg.errors() === 1 || undefined))
      // Skipped: no event of its own, and the stream goes on (a codec failing on it would end the connection).
      leg.speak(mulaw(160, 0x22))
      yield* Effect.promise(() => waitFor("caller audio after the error", () => connection.events.length > before || undefined))
      expect(connection.events.slice(before).map((e) => e._tag)).toEqual(["Audio"])
      yield* s.adapter.calls.hangUp({ config: s.config, providerCallId })
      yield* ended(s, providerCallId)
    }))
})

describe("telnyx inbound calls against the fake Telnyx", () => {
  const inboundSetup = Effect.gen(function*() {
    const s = yield* setup()
    const number = freshNumber()
    s.fake.addNumber(number, null)
    const sync = yield* s.adapter.inbound.configure({ config: s.config, address: number, webhookUrl: `${s.receiver.url}/inbound` })
    return { s, number, sync }
  })

  it.scopedLive("binding a number assigns it to the application and points the application's webhook at us", () =>
    Effect.gen(function*() {
      const { number, s, sync } = yield* inboundSetup
      expect(sync).toEqual({
        ok: true,
        message: `Telnyx: calls to ${number} go to Call Control Application "agentline", whose webhook for all its numbers is ${s.receiver.url}/inbound`
      })
      expect(s.fake.number(number)!.connectionId).toBe(s.application.id)
      expect(s.fake.application(s.application.id)!.webhookEventUrl).toBe(`${s.receiver.url}/inbound`)
      // Again: nothing to change, still fine.
      expect((yield* s.adapter.inbound.configure({ config: s.config, address: number, webhookUrl: `${s.receiver.url}/inbound` })).ok).toBe(true)
      // Unbinding takes the number off the application and leaves the webhook its other numbers share alone.
      const unbound = yield* s.adapter.inbound.configure({ config: s.config, address: number, webhookUrl: null })
      expect(unbound).toEqual({ ok: true, message: `Telnyx: calls to ${number} no longer reach this server (the number left Call Control Application ${s.application.id})` })
      expect(s.fake.number(number)!.connectionId).toBe(null)
      expect(s.fake.number(CALLER)!.connectionId).toBe(s.application.id)
      expect(s.fake.application(s.application.id)!.webhookEventUrl).toBe(`${s.receiver.url}/inbound`)
      expect((yield* s.adapter.inbound.configure({ config: s.config, address: number, webhookUrl: null })).message).toContain("nothing to change")
    }))

  it.scopedLive("number setup reports what Telnyx refused, as a warning", () =>
    Effect.gen(function*() {
      const { s } = yield* inboundSetup
      const url = `${s.receiver.url}/inbound`
      expect(yield* s.adapter.inbound.configure({ config: s.config, address: "+19995550000", webhookUrl: url })).toEqual({
        ok: false,
        message: "Telnyx: the account has no phone number +19995550000"
      })
      const noApplication = { api_key: s.config.api_key, amd_enabled: false }
      expect((yield* s.adapter.inbound.configure({ config: noApplication, address: CALLER, webhookUrl: url })).message).toContain("no connection_id")
      s.fake.failNext(500, 1, /call_control_applications/)
      const failed = yield* s.adapter.inbound.configure({ config: s.config, address: CALLER, webhookUrl: "https://elsewhere.example.com/inbound" })
      expect(failed).toMatchObject({ ok: false, message: expect.stringContaining("Telnyx refused to read the Call Control Application") })
      const unknownApplication = yield* s.adapter.inbound.configure({ config: { ...s.config, connection_id: "404" }, address: CALLER, webhookUrl: url })
      expect(unknownApplication).toMatchObject({ ok: false, message: expect.stringContaining("Associated resource does not exist") })
    }))

  it.scopedLive("an incoming call is parsed, answered by command with its stream and callback URL, and talks until the caller hangs up", () =>
    Effect.gen(function*() {
      const { number, s } = yield* inboundSetup
      let inbound: Either.Either<unknown, unknown> | undefined
      s.receiver.onInbound = async (request) => {
        const ok = await Effect.runPromise(s.adapter.webhooks.verify({ config: s.config, request }))
        if (!ok) return 401
        const call = await Effect.runPromise(Effect.either(s.adapter.webhooks.parseInbound({ request })))
        inbound = call
        if (Either.isLeft(call)) return 200
        await Effect.runPromise(s.adapter.webhooks.instructCall!({
          config: s.config,
          providerCallId: call.right.providerCallId,
          instruction: { _tag: "ConnectMediaStream", url: `${s.receiver.mediaUrl}?token=in`, parameters: { run_id: "9" } },
          callbackUrl: `${s.receiver.url}/status/9`
        }))
        return 200
      }
      const call = (yield* Effect.promise(() => s.fake.placeInbound({ to: number, from: "+16505550123", behaviour: { answer: "human", talkSeconds: 5 } })))!
      expect(inbound).toEqual(Either.right({ accountId: s.application.id, to: number, from: "+16505550123", providerCallId: call.callControlId }))
      expect(call.commands[0]).toMatchObject({ action: "answer", body: Telnyx.streamParameters(`${s.receiver.mediaUrl}?token=in`) })
      const connection = yield* Effect.promise(() => waitFor("the media connection", () => s.receiver.media[0]))
      const start = yield* Effect.promise(() => waitFor("start", () => connection.events.find((e) => e._tag === "Start")))
      expect(start).toMatchObject({ providerCallId: call.callControlId, parameters: { run_id: "9" } })
      expect(yield* ended(s, call.callControlId)).toBe("normal_clearing")
      expect(eventsOf(s, call.callControlId)).toEqual(["answered", "ended:completed"])
      expect(s.receiver.received.filter((r) => r.path === "/status/9").map((r) => r.body.data.event_type))
        .toEqual(["call.answered", "streaming.started", "streaming.stopped", "call.hangup"])
    }))

  it.scopedLive("rejecting: busy when over the limit, declined otherwise; keeping a call open answers it without a stream", () =>
    Effect.gen(function*() {
      const { number, s } = yield* inboundSetup
      const instructions = [
        { _tag: "Reject", reason: "", busy: true },
        { _tag: "Reject", reason: "No agent answers this number" },
        { _tag: "KeepOpen" }
      ] as const
      const causes: Array<string> = []
      for (const instruction of instructions) {
        s.receiver.onInbound = async (request) => {
          // The application's webhook also hears the rest of a call it did not hand elsewhere (its hang-up).
          const call = await Effect.runPromise(Effect.either(s.adapter.webhooks.parseInbound({ request })))
          if (Either.isLeft(call)) return 200
          await Effect.runPromise(s.adapter.webhooks.instructCall!({ config: s.config, providerCallId: call.right.providerCallId, instruction }))
          return 200
        }
        const call = (yield* Effect.promise(() => s.fake.placeInbound({ to: number, from: "+16505550123", behaviour: { answer: "human", talkSeconds: 1 } })))!
        causes.push(yield* ended(s, call.callControlId))
        // Telnyx ignores what the webhook is answered with.
        expect(s.adapter.webhooks.answer({ config: s.config, instruction }).status).toBe(200)
      }
      expect(causes).toEqual(["user_busy", "call_rejected", "normal_clearing"])
      expect(s.receiver.media).toHaveLength(0)
      // A command on a call that is over is not an error.
      const over = s.fake.calls().at(-1)!
      yield* s.adapter.webhooks.instructCall!({ config: s.config, providerCallId: over.callControlId, instruction: { _tag: "Reject", reason: "" } })
    }))

  it.scopedLive("parseInbound refuses what is not an incoming call", () =>
    Effect.gen(function*() {
      const { s } = yield* inboundSetup
      const request = (body: unknown) => ({ method: "POST", url: `${s.receiver.url}/inbound`, headers: {}, rawBody: new TextEncoder().encode(JSON.stringify(body)) })
      const outgoing = { data: { event_type: "call.initiated", payload: { call_control_id: "v3:x", connection_id: "1", to: "+1", direction: "outgoing" } } }
      const hangup = { data: { event_type: "call.hangup", payload: { call_control_id: "v3:x", connection_id: "1", to: "+1", direction: "incoming" } } }
      const partial = { data: { event_type: "call.initiated", payload: { call_control_id: "v3:x", direction: "incoming" } } }
      expect((yield* Effect.flip(s.adapter.webhooks.parseInbound({ request: request(outgoing) }))).message).toContain("(outgoing)")
      expect((yield* Effect.flip(s.adapter.webhooks.parseInbound({ request: request(hangup) }))).message).toContain("call.hangup")
      expect((yield* Effect.flip(s.adapter.webhooks.parseInbound({ request: request(partial) }))).message).toContain("required")
      expect((yield* Effect.flip(s.adapter.webhooks.parseInbound({ request: request("nope") }))).message).toContain("not a Telnyx webhook")
    }))
})
