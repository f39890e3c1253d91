/**
 * The Vobiz adapter (the Plivo-compatible adapter in Vobiz's dialect) against the fake Vobiz: what
 * differs from Plivo — header auth, `/api/v1` paths, signatures over the URL without its query, the
 * request uuid as the call's id, number links under `numbers/`, big-endian L16, the account in
 * inbound requests.
 */
import type { MediaEvent } from "@agentline/core/telephony/Media"
import * as Signature from "@agentline/telephony-plivo/Signature"
import * as LoopbackServer from "@agentline/telephony-plivo/testing/LoopbackServer"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { Vobiz } from "../src/index.js"
import * as FakeVobiz from "../src/testing/FakeVobiz.js"

const account = { authId: "MA_VOBIZTEST", authToken: "vobiz-token-1" }
const config = { auth_id: account.authId, auth_token: account.authToken, amd_enabled: false }
const OWNED = "+918012345678"

const eventually = (check: () => boolean) =>
  Effect.suspend(() => (check() ? Effect.void : Effect.fail("not yet"))).pipe(
    Effect.retry(Schedule.spaced("10 millis").pipe(Schedule.upTo("5 seconds"))),
    Effect.orDie
  )

const setup = Effect.gen(function*() {
  const fake = yield* FakeVobiz.make({
    accounts: [account],
    numbers: [{ number: OWNED, authId: account.authId }],
    callee: (to) => (to.endsWith("0001") ? "busy" : to.endsWith("0004") ? "machine" : "human")
  })
  const vobiz = Vobiz.make({ apiUrl: fake.url })
  const server = yield* LoopbackServer.make({ adapter: vobiz, config })
  const place = (to: string, attempt: number, cfg = config) =>
    vobiz.calls.place({
      config: cfg,
      to,
      from: OWNED,
      attemptId: attempt,
      callbackUrl: server.callbackUrl(attempt),
      answerUrl: server.answerUrl(attempt),
      whenAnswered: { _tag: "ConnectMediaStream", url: `${server.wsUrl}/media/${attempt}`, parameters: { attempt_id: String(attempt) } },
      onEvent: () => Effect.void
    })
  const outcome = (attempt: number) => {
    const ended = server.events.find((e) => e.attempt === String(attempt) && e.event.type === "ended")?.event
    return ended?.type === "ended" ? ended.outcome : undefined
  }
  return { fake, vobiz, server, place, outcome }
})

describe("Vobiz against its fake", () => {
  it.scopedLive("places calls with header auth under /api/v1, keeps the request uuid, verifies URL-only signatures", () =>
    Effect.gen(function*() {
      const { fake, outcome, place, server } = yield* setup
      const { providerCallId } = yield* place("+919876500000", 1)
      const call = fake.call(providerCallId)!
      expect(call.requestUuid).toBe(providerCallId)
      yield* fake.ended(call)
      yield* eventually(() => outcome(1) !== undefined)
      expect(outcome(1)).toBe("completed")
      expect(server.refused).toEqual([])
      expect(fake.requests.filter((r) => r.method === "POST")[0]!.path).toBe(`/api/v1/Account/${account.authId}/Call/`)
      // Vobiz signs the URL without its query: a moved query still verifies, another path does not.
      const url = "https://calls.example/cb/1?a=1"
      const headers = Signature.sign(Signature.vobiz, account.authToken, { method: "POST", url, params: [["X", "1"]] }, "1234")
      const check = (u: string, h: Record<string, string>) =>
        Signature.verify(Signature.vobiz, account.authToken, { method: "POST", url: u, params: [], header: (n) => h[n] })
      expect(check("https://calls.example/cb/1?b=2", headers)).toBe(true)
      expect(check("https://calls.example/cb/2?a=1", headers)).toBe(false)
      // The V2 scheme (no dot) is accepted when it is the only one sent.
      expect(check(url, { "x-vobiz-signature-v2": headers["x-vobiz-signature-v2"]!, "x-vobiz-signature-v2-nonce": "1234" })).toBe(true)
      expect(check(url, { "x-vobiz-signature-v3": headers["x-vobiz-signature-v2"]!, "x-vobiz-signature-v3-nonce": "1234" })).toBe(false)
    }))

  it.scopedLive("verifyCredentials: the fake accepts the account's token and refuses another (agentline doctor)", () =>
    Effect.gen(function*() {
      const fake = yield* FakeVobiz.make({ accounts: [account] })
      const vobiz = Vobiz.make({ apiUrl: fake.url })
      expect(yield* vobiz.verifyCredentials!(config)).toEqual({ ok: true, message: "Vobiz accepts the credentials" })
      const refused = yield* vobiz.verifyCredentials!({ ...config, auth_token: "a-wrong-token" })
      expect(refused.ok).toBe(false)
      expect(refused.message).toMatch(/^Vobiz refused to check the credentials \(HTTP 401\)/)
      expect(refused.message).not.toContain("a-wrong-token")
    }))

  it.scopedLive("refuses other credentials, maps busy and machine answers, hangs up and looks calls up", () =>
    Effect.gen(function*() {
      const { fake, outcome, place, vobiz } = yield* setup
      expect(yield* Effect.flip(place("+919876500000", 2, { ...config, auth_token: "wrong" }))).toMatchObject({ retryable: false })
      const busy = yield* place("+919876500001", 3)
      yield* fake.ended(fake.call(busy.providerCallId)!)
      yield* eventually(() => outcome(3) !== undefined)
      expect(outcome(3)).toBe("busy")

      const machine = yield* place("+919876500004", 4, { ...config, amd_enabled: true })
      yield* fake.ended(fake.call(machine.providerCallId)!)
      yield* eventually(() => outcome(4) !== undefined)
      expect(outcome(4)).toBe("voicemail")

      const talking = yield* place("+919876500000", 5)
      yield* eventually(() => fake.call(talking.providerCallId)?.status === "in-progress")
      expect(yield* vobiz.calls.get({ config, providerCallId: talking.providerCallId })).toEqual({ _tag: "InProgress" })
      yield* vobiz.calls.hangUp({ config, providerCallId: talking.providerCallId })
      yield* fake.ended(fake.call(talking.providerCallId)!)
      expect(yield* vobiz.calls.get({ config, providerCallId: talking.providerCallId })).toMatchObject({ _tag: "Ended", outcome: "completed" })
    }))

  it.scopedLive("links numbers under numbers/{+n}/application, unlinks them, and routes inbound calls by ParentAuthID", () =>
    Effect.gen(function*() {
      const { fake, server, vobiz } = yield* setup
      expect((yield* vobiz.inbound.configure({ config, address: OWNED, webhookUrl: server.inboundUrl })).ok).toBe(true)
      const appId = fake.links.get(OWNED)!
      expect(fake.requests.some((r) => r.method === "POST" && r.path === `/api/v1/Account/${account.authId}/numbers/%2B918012345678/application`))
        .toBe(true)
      expect(fake.applications.get(appId)!.answerUrl).toBe(`${server.inboundUrl}?account_id=${account.authId}`)
      const call = yield* Effect.orDie(fake.placeInbound({ from: "+919800000000", to: OWNED }))
      yield* fake.ended(call)
      expect(server.inbound).toEqual([{ accountId: account.authId, to: OWNED, from: "+919800000000", providerCallId: call.callUuid }])
      expect((yield* vobiz.inbound.configure({ config, address: OWNED, webhookUrl: null })).ok).toBe(true)
      expect(fake.links.get(OWNED)).toBeUndefined()
      expect(fake.requests.some((r) => r.method === "DELETE" && r.path.endsWith("/numbers/%2B918012345678/application"))).toBe(true)
    }))

  it.effect("streams L16 to us big-endian and takes it back little-endian, the stream id in playAudio", () =>
    Effect.gen(function*() {
      const codec = yield* Vobiz.provider.media!.open
      const events: Array<MediaEvent> = [...(yield* codec.decode({
        _tag: "Text",
        text: JSON.stringify({ event: "start", start: { callId: "c", streamId: "s", mediaFormat: { encoding: "audio/x-l16", sampleRate: 16000 } } })
      }))]
      expect(events[0]).toMatchObject({ format: { encoding: "l16be", sampleRate: 16000 } })
      const [frame] = yield* codec.encode({ _tag: "Audio", audio: { format: { encoding: "l16be", sampleRate: 16000 }, data: new Uint8Array([1, 2]) } })
      const sent = frame!._tag === "Text" ? JSON.parse(frame!.text) : undefined
      expect(sent).toMatchObject({ event: "playAudio", streamId: "s", media: { contentType: "audio/x-l16", sampleRate: 16000 } })
      expect([...Buffer.from(sent.media.payload, "base64")]).toEqual([2, 1])
    }))
})
