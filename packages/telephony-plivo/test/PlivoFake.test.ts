/**
 * The Plivo adapter against the fake Plivo, over real HTTP and WebSockets on 127.0.0.1: calls play
 * out, callbacks are signed and verified, the answer XML opens the audio stream, the number setup
 * goes through applications, and carrier failures come back as the right errors.
 */
import type { CallEvent } from "@agentline/core/telephony/TelephonyProvider"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { Plivo } from "../src/index.js"
import * as FakePlivo from "../src/testing/FakePlivo.js"
import * as LoopbackServer from "../src/testing/LoopbackServer.js"

const account = { authId: "MAPLIVOTEST0001", authToken: "plivo-token-1" }
const config = { auth_id: account.authId, auth_token: account.authToken, amd_enabled: false }
const OWNED = "+14155550100"

const calleeOf = (to: string) =>
  to.endsWith("0001") ? "busy" : to.endsWith("0002") ? "no-answer" : to.endsWith("0003") ? "failed" : to.endsWith("0004") ? "machine" : "human"

const setup = (options: { readonly amd?: boolean; readonly hangUpAfterFrames?: number; readonly timings?: Partial<FakePlivo.Timings> } = {}) =>
  Effect.gen(function*() {
    const fake = yield* FakePlivo.make({
      accounts: [account],
      numbers: [{ number: OWNED, authId: account.authId }],
      callee: calleeOf,
      ...(options.timings !== undefined ? { timings: options.timings } : {})
    })
    const plivo = Plivo.make({ apiUrl: fake.url })
    const cfg = { ...config, amd_enabled: options.amd ?? false }
    const server = yield* LoopbackServer.make({
      adapter: plivo,
      config: cfg,
      reply: { commands: (start) => [{ _tag: "Audio", audio: { format: start.format, data: new Uint8Array(320).fill(1) } }] },
      ...(options.hangUpAfterFrames !== undefined ? { hangUpAfterFrames: options.hangUpAfterFrames } : {})
    })
    const place = (to: string, attempt: number) =>
      plivo.calls.place({
        config: cfg,
        to,
        from: OWNED,
        attemptId: attempt,
        callbackUrl: server.callbackUrl(attempt),
        answerUrl: server.answerUrl(attempt),
        whenAnswered: { _tag: "ConnectMediaStream", url: `${server.wsUrl}/media/${attempt}`, parameters: { attempt_id: String(attempt) } },
        onEvent: () => Effect.void
      })
    const eventsOf = (attempt: number) => server.events.filter((e) => e.attempt === String(attempt)).map((e) => e.event)
    const ended = (providerCallId: string) => Effect.flatMap(Effect.sync(() => fake.call(providerCallId)!), fake.ended)
    return { fake, plivo, cfg, server, place, eventsOf, ended }
  })

const summary = (events: ReadonlyArray<CallEvent>) => events.map((e) => (e.type === "ended" ? `ended:${e.outcome}` : e.type))

/** Waits (real time) until `check` holds. */
const eventually = (check: () => boolean) =>
  Effect.suspend(() => (check() ? Effect.void : Effect.fail("not yet"))).pipe(
    Effect.retry(Schedule.spaced("10 millis").pipe(Schedule.upTo("5 seconds"))),
    Effect.orDie
  )

describe("Plivo against its fake", () => {
  it.scopedLive("places a call that rings, is answered, streams audio both ways and ends completed", () =>
    Effect.gen(function*() {
      // Our side hangs up once the caller's three frames arrived: the stream's end ends the call.
      const { eventsOf, ended, fake, place, server } = yield* setup({ hangUpAfterFrames: 3, timings: { talkMillis: 10_000 } })
      const { providerCallId } = yield* place("+14155550199", 1)
      const call = yield* ended(providerCallId)
      // The id kept is the call uuid, learnt from the queued call after the API named the request.
      expect(call.callUuid).toBe(providerCallId)
      expect(call.requestUuid).not.toBe(providerCallId)
      yield* eventually(() => eventsOf(1).some((e) => e.type === "ended"))
      expect(summary(eventsOf(1))).toEqual(["ringing", "answered", "ended:completed"])
      expect(eventsOf(1).every((e) => e.providerCallId === providerCallId)).toBe(true)
      expect(server.refused).toEqual([])
      // What the adapter asked for: digits without "+", every callback at our URL.
      const placed = fake.requests.find((r) => r.method === "POST" && r.path.endsWith("/Call/"))!.body as Record<string, string>
      expect(placed).toMatchObject({
        from: "14155550100",
        to: "14155550199",
        answer_url: server.answerUrl(1),
        ring_url: server.callbackUrl(1),
        hangup_url: server.callbackUrl(1)
      })
      expect(placed.machine_detection).toBeUndefined()
      // The stream: start with our parameters, the caller's audio, our audio played and its mark reached.
      const connection = server.media.find((m) => m.attempt === "1")!
      expect(connection.events[0]).toMatchObject({ _tag: "Start", providerCallId: call.callUuid, format: { encoding: "mulaw", sampleRate: 8000 }, parameters: { attempt_id: "1" } })
      expect(connection.events.filter((e) => e._tag === "Audio").length).toBe(3)
      yield* eventually(() => connection.closed)
      expect(call.stream!.current.played.map((p) => p.length)).toEqual([320])
      expect(call.stream!.current.checkpointsPlayed).toEqual(["greeting"])
      expect(call.stream!.current.closedBy).toBe("server")
      expect(call.hangup?.causeName).toBe("End Of XML Instructions")
      expect(call.answerXml).toContain(`<Stream bidirectional="true" keepCallAlive="true"`)
    }))

  it.scopedLive("ends busy, no-answer and invalid numbers with their outcomes and no talk time", () =>
    Effect.gen(function*() {
      const { eventsOf, ended, place } = yield* setup()
      const outcomes: Array<string> = []
      for (const [to, attempt] of [["+14155550001", 11], ["+14155550002", 12], ["+14155550003", 13]] as const) {
        const { providerCallId } = yield* place(to, attempt)
        yield* ended(providerCallId)
        yield* eventually(() => eventsOf(attempt).some((e) => e.type === "ended"))
        const last = eventsOf(attempt).at(-1)!
        outcomes.push(last.type === "ended" ? `${last.outcome}/${last.durationSeconds}/${last.hangupCause}` : last.type)
      }
      expect(outcomes).toEqual(["busy/0/Busy Line", "no_answer/0/No Answer", "failed/0/Invalid Destination Address"])
    }))

  it.scopedLive("ends a machine answer as voicemail when detection is asked, and as completed when not", () =>
    Effect.gen(function*() {
      const detecting = yield* setup({ amd: true })
      const asked = yield* detecting.place("+14155550004", 21)
      yield* detecting.ended(asked.providerCallId)
      yield* eventually(() => detecting.eventsOf(21).some((e) => e.type === "ended"))
      expect(summary(detecting.eventsOf(21)).filter((e) => e.startsWith("ended"))[0]).toBe("ended:voicemail")
      const body = detecting.fake.requests.find((r) => r.path.endsWith("/Call/"))!.body as Record<string, string>
      expect(body).toMatchObject({ machine_detection: "hangup", machine_detection_url: detecting.server.callbackUrl(21) })

      const plain = yield* setup()
      const notAsked = yield* plain.place("+14155550004", 22)
      yield* plain.ended(notAsked.providerCallId)
      yield* eventually(() => plain.eventsOf(22).some((e) => e.type === "ended"))
      expect(summary(plain.eventsOf(22))).toEqual(["ringing", "answered", "ended:completed"])
    }))

  it.scopedLive("hangs up a ringing call (canceled), an answered one (completed), and an ended one (no error)", () =>
    Effect.gen(function*() {
      const { cfg, ended, eventsOf, fake, place, plivo } = yield* setup({ timings: { noAnswerMillis: 5_000, talkMillis: 5_000 } })
      const ringing = yield* place("+14155550002", 31)
      yield* eventually(() => fake.call(ringing.providerCallId)?.status === "ringing")
      expect(yield* plivo.calls.get({ config: cfg, providerCallId: ringing.providerCallId })).toEqual({ _tag: "InProgress" })
      yield* plivo.calls.hangUp({ config: cfg, providerCallId: ringing.providerCallId })
      yield* ended(ringing.providerCallId)
      yield* eventually(() => eventsOf(31).some((e) => e.type === "ended"))
      expect(summary(eventsOf(31)).at(-1)).toBe("ended:canceled")

      const answered = yield* place("+14155550199", 32)
      yield* eventually(() => fake.call(answered.providerCallId)?.status === "in-progress")
      yield* plivo.calls.hangUp({ config: cfg, providerCallId: answered.providerCallId })
      const call = yield* ended(answered.providerCallId)
      expect(call.hangup?.source).toBe("API Request")
      yield* eventually(() => eventsOf(32).some((e) => e.type === "ended"))
      expect(summary(eventsOf(32)).at(-1)).toBe("ended:completed")
      yield* plivo.calls.hangUp({ config: cfg, providerCallId: answered.providerCallId })
      expect(yield* plivo.calls.get({ config: cfg, providerCallId: answered.providerCallId })).toMatchObject({ _tag: "Ended", outcome: "completed" })
      // Plivo keeps finished calls by call uuid: known only by its request uuid, a finished call is Unknown.
      expect((yield* plivo.calls.get({ config: cfg, providerCallId: call.requestUuid! }))._tag).toBe("Unknown")
    }))

  it.scopedLive("turns carrier refusals into errors: bad numbers are final, rate limits and outages retryable", () =>
    Effect.gen(function*() {
      const { fake, place, plivo, server } = yield* setup()
      const invalid = yield* Effect.flip(place("not-a-number", 41))
      expect(invalid).toMatchObject({ retryable: false })
      expect(invalid.message).toContain("invalid 'to' number")
      fake.failNext(429)
      expect(yield* Effect.flip(place("+14155550199", 42))).toMatchObject({ retryable: true })
      fake.failNext(503)
      expect(yield* Effect.flip(place("+14155550199", 43))).toMatchObject({ retryable: true })
      const wrong = yield* Effect.flip(plivo.calls.place({
        config: { ...config, auth_token: "wrong" },
        to: "+14155550199",
        from: OWNED,
        attemptId: 44,
        callbackUrl: server.callbackUrl(44),
        answerUrl: server.answerUrl(44),
        whenAnswered: { _tag: "KeepOpen" },
        onEvent: () => Effect.void
      }))
      expect(wrong).toMatchObject({ retryable: false })
      expect(wrong.message).not.toContain("wrong")
      fake.failNext(500)
      expect(yield* plivo.calls.get({ config, providerCallId: "anything" })).toMatchObject({ _tag: "Unknown" })
    }))

  it.scopedLive("verifyCredentials: the fake accepts the account's token and refuses another, without saying it (agentline doctor)", () =>
    Effect.gen(function*() {
      const fake = yield* FakePlivo.make({ accounts: [account] })
      const plivo = Plivo.make({ apiUrl: fake.url })
      expect(yield* plivo.verifyCredentials!(config)).toEqual({ ok: true, message: "Plivo accepts the credentials" })
      const refused = yield* plivo.verifyCredentials!({ ...config, auth_token: "a-wrong-token" })
      expect(refused.ok).toBe(false)
      expect(refused.message).toMatch(/^Plivo refused to check the credentials \(HTTP 401\)/)
      expect(refused.message).not.toContain("a-wrong-token")
    }))

  it.scopedLive("refuses callbacks signed with another token", () =>
    Effect.gen(function*() {
      const fake = yield* FakePlivo.make({ accounts: [{ ...account, authToken: "not-the-configured-token" }] })
      const plivo = Plivo.make({ apiUrl: fake.url })
      const server = yield* LoopbackServer.make({ adapter: plivo, config })
      const { providerCallId } = yield* plivo.calls.place({
        config: { ...config, auth_token: "not-the-configured-token" },
        to: "+14155550199",
        from: OWNED,
        attemptId: 51,
        callbackUrl: server.callbackUrl(51),
        answerUrl: server.answerUrl(51),
        whenAnswered: { _tag: "KeepOpen" },
        onEvent: () => Effect.void
      })
      yield* fake.ended(fake.call(providerCallId)!)
      expect(server.events).toEqual([])
      expect(server.refused.length).toBeGreaterThanOrEqual(2)
    }))

  it.scopedLive("sets up inbound numbers through an application and answers inbound calls with a stream", () =>
    Effect.gen(function*() {
      const { cfg, fake, plivo, server } = yield* setup()
      const bound = yield* plivo.inbound.configure({ config: cfg, address: OWNED, webhookUrl: server.inboundUrl })
      expect(bound.ok).toBe(true)
      const apps = [...fake.applications.values()]
      expect(apps.map((a) => a.appName)).toEqual(["Agentline"])
      expect(apps[0]!.answerUrl).toBe(`${server.inboundUrl}?account_id=${account.authId}`)
      expect(fake.links.get(OWNED)).toBe(apps[0]!.appId)
      // Binding again reuses the application.
      expect((yield* plivo.inbound.configure({ config: cfg, address: OWNED, webhookUrl: server.inboundUrl })).ok).toBe(true)
      expect(fake.applications.size).toBe(1)
      expect(yield* plivo.inbound.configure({ config: cfg, address: "+14155550777", webhookUrl: server.inboundUrl }))
        .toMatchObject({ ok: false, message: expect.stringContaining("does not own") })
      expect(yield* plivo.inbound.configure({ config: { ...cfg, application_id: "404" }, address: OWNED, webhookUrl: server.inboundUrl }))
        .toMatchObject({ ok: false })
      expect((yield* plivo.inbound.configure({ config: cfg, address: OWNED, webhookUrl: null })).ok).toBe(true)
      expect(fake.links.get(OWNED)).toBeUndefined()
      expect(fake.applications.size).toBe(1)
      expect((yield* plivo.inbound.configure({ config: cfg, address: OWNED, webhookUrl: server.inboundUrl })).ok).toBe(true)

      const call = yield* Effect.orDie(fake.placeInbound({ from: "+14155550123", to: OWNED }))
      yield* fake.ended(call)
      expect(server.inbound).toEqual([{ accountId: account.authId, to: OWNED, from: "+14155550123", providerCallId: call.callUuid }])
      const connection = server.media.find((m) => m.attempt === `in-${call.callUuid}`)!
      expect(connection.events[0]).toMatchObject({ _tag: "Start", providerCallId: call.callUuid })
      expect(call.hangup?.causeName).toBe("Normal Hangup")
      expect(call.stream!.current.closedBy).toBe("carrier")
    }))

  it.scopedLive("rejects an inbound call with a Hangup, and clears queued audio on request", () =>
    Effect.gen(function*() {
      const { cfg, fake, plivo, server } = yield* setup()
      yield* plivo.inbound.configure({ config: cfg, address: OWNED, webhookUrl: server.inboundUrl })
      server.instructions.set("inbound", { _tag: "Reject", reason: "" })
      const refused = yield* Effect.orDie(fake.placeInbound({ from: "+14155550123", to: OWNED }))
      yield* fake.ended(refused)
      expect(refused.answerXml).toContain(`<Hangup reason="rejected"/>`)
      expect(refused.hangup?.causeName).toBe("Rejected")
      expect(refused.answeredAt).toBeUndefined()
      server.instructions.delete("inbound")

      // Clear: audio queued long enough to still be playing is dropped and acknowledged.
      const third = yield* Effect.orDie(fake.placeInbound({ from: "+14155550123", to: OWNED }))
      yield* eventually(() => server.media.some((m) => m.attempt === `in-${third.callUuid}` && m.events.length > 0))
      const connection = server.media.find((m) => m.attempt === `in-${third.callUuid}`)!
      const start = connection.events[0]!
      if (start._tag !== "Start") return yield* Effect.die("no start")
      yield* connection.send([{ _tag: "Audio", audio: { format: start.format, data: new Uint8Array(80_000) } }, { _tag: "Mark", name: "long" }, { _tag: "Clear" }, { _tag: "Mark", name: "after" }])
      yield* fake.ended(third)
      expect(third.stream!.current.clears).toBe(1)
      expect(third.stream!.current.received.map((m) => m.event)).toContain("clearAudio")
      expect(third.stream!.current.checkpointsPlayed).toContain("after")
      expect(third.stream!.current.checkpointsPlayed).not.toContain("long")
    }))
})
