import type { CallInstruction, WebhookRequest } from "@agentline/telephony-kit/TelephonyProvider"
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, ParseResult, Schema } from "effect"
import { Exotel } from "../src/index.js"
import * as FakeExotel from "../src/testing/FakeExotel.js"

const decode = (input: unknown) => Schema.decodeUnknownEither(Exotel.ExotelConfig)(input)

/** The failing fields of a decode, sorted, with their messages. */
const failures = (input: unknown) => {
  const result = decode(input)
  return Either.isRight(result) ? [] : ParseResult.ArrayFormatter.formatErrorSync(result.left).map((i) => [i.path.join("."), i.message])
}

const complete = { account_sid: "acme1", api_key: "exo-key", api_token: "exo-token", api_base_url: "https://api.in.exotel.com" }
const config = Schema.decodeUnknownSync(Exotel.ExotelConfig)(complete)

const request = (url: string, headers: Record<string, string> = {}, body = ""): WebhookRequest => ({
  method: "GET",
  url,
  headers,
  rawBody: new TextEncoder().encode(body)
})

describe("exotel configuration", () => {
  it("requires and hides the SID, key and token", () => {
    expect(Exotel.fields.filter((f) => f.required).map((f) => f.name)).toEqual(["account_sid", "api_key", "api_token"])
    expect(Exotel.fields.filter((f) => f.sensitive).map((f) => f.name)).toEqual(["account_sid", "api_key", "api_token"])
    expect(failures({}).map(([path]) => path).sort()).toEqual(["account_sid", "api_key", "api_token"])
    expect(Either.isRight(decode(complete))).toBe(true)
    expect(Either.isRight(decode({ ...complete, api_base_url: null }))).toBe(true)
  })

  it("accepts only Exotel's two API regions, and says which", () => {
    for (const wrong of ["https://evil.example.com", "http://api.exotel.com", "https://api.exotel.com/v1", "api.in.exotel.com"]) {
      expect(failures({ ...complete, api_base_url: wrong })).toEqual([[
        "api_base_url",
        "api_base_url must be one of Exotel's regional API hosts: https://api.exotel.com (Singapore) or https://api.in.exotel.com (Mumbai)"
      ]])
    }
    expect([...new Set(failures({ ...complete, api_base_url: 42 }).map(([path]) => path))]).toEqual(["api_base_url"])
    // A pasted host is trimmed, a trailing slash dropped; null means "not set".
    expect(decode({ ...complete, api_base_url: " https://api.in.exotel.com/\n" })).toEqual(Either.right(complete))
    expect(decode({ ...complete, api_base_url: null })).toEqual(Either.right({ account_sid: "acme1", api_key: "exo-key", api_token: "exo-token" }))
    expect(Exotel.fields.find((f) => f.name === "api_base_url")!.options!.map((o) => o.value)).toEqual([...Exotel.apiBaseUrls])
    expect(Exotel.fields.some((f) => /amd|machine/.test(f.name))).toBe(false)
  })

  it("routes inbound calls by the account SID", () => {
    expect(Exotel.accountId(config)).toBe("acme1")
  })
})

describe("exotel answers and incoming calls", () => {
  const connect: CallInstruction = { _tag: "ConnectMediaStream", url: "wss://agentline.example/api/v1/telephony/media/exotel/tok", parameters: { attempt_id: "7", run_id: "3" } }

  it("answers the Voicebot applet with the stream URL, parameters in its query; anything else with no URL", () => {
    expect(Exotel.answer(connect)).toEqual({
      status: 200,
      contentType: "application/json",
      body: JSON.stringify({ url: "wss://agentline.example/api/v1/telephony/media/exotel/tok?attempt_id=7&run_id=3" })
    })
    expect(JSON.parse(Exotel.answer({ _tag: "Reject", reason: "Sorry", busy: true }).body)).toEqual({})
    expect(JSON.parse(Exotel.answer({ _tag: "KeepOpen" }).body)).toEqual({})
    // Exotel passes three custom parameters at most.
    expect(Exotel.streamUrl("wss://x/m", { a: "1", b: "2", c: "3", d: "4" })).toBe("wss://x/m?a=1&b=2&c=3")
  })

  it("reads the applet's GET: the call from the query, the account from the Basic user name", () => {
    const url = "https://agentline.example/api/v1/telephony/inbound/exotel?CallSid=c1&CallFrom=09876543210&CallTo=08047491899&Direction=incoming"
    const authorization = `Basic ${Buffer.from("acme1:whatever").toString("base64")}`
    expect(Exotel.inboundCall(request(url, { authorization }))).toEqual(
      Either.right({ accountId: "acme1", to: "+918047491899", from: "+919876543210", providerCallId: "c1" })
    )
    // A POST with the same fields in a form body, the account named in it, reads the same.
    const posted = request("https://agentline.example/api/v1/telephony/inbound/exotel", {}, "CallSid=c1&From=%2B919876543210&To=%2B918047491899&AccountSid=acme1")
    expect(Exotel.inboundCall(posted)).toEqual(Either.right({ accountId: "acme1", to: "+918047491899", from: "+919876543210", providerCallId: "c1" }))
    expect(Either.isLeft(Exotel.inboundCall(request("https://agentline.example/api/v1/telephony/inbound/exotel?CallSid=c1&CallTo=1", {})))).toBe(true)
  })

  it("provider_sync names the exact URL to paste into the flow, and that URL verifies", () => {
    const route = "https://agentline.example/api/v1/telephony/inbound/exotel"
    const bound = Exotel.inboundSetup(config, "+918047491899", route)
    expect(bound.ok).toBe(false)
    const pasted = Exotel.Signature.inboundFlowUrl(config, route)
    expect(bound.message).toContain(pasted)
    expect(bound.message).toContain(route)
    expect(bound.message).not.toContain(config.api_token)
    expect(bound.message).not.toContain(config.api_key)
    expect(Exotel.inboundSetup(config, "+918047491899", null)).toMatchObject({ ok: false })
  })
})

describe("exotel calls against the fake", () => {
  const account = { sid: "acme1", apiKey: "exo-key", apiToken: "exo-token" }
  const withFake = <A, E>(
    body: (fake: FakeExotel.FakeExotel, adapter: Exotel.ExotelProvider) => Effect.Effect<A, E>,
    secondMillis = 5
  ) =>
    Effect.acquireUseRelease(
      Effect.promise(() => FakeExotel.start({ accounts: [account], secondMillis })),
      (fake) => Effect.flatMap(Exotel.make({ apiUrl: fake.url }).pipe(Effect.provide(FetchHttpClient.layer)), (adapter) => body(fake, adapter)),
      (fake) => Effect.promise(() => fake.close())
    )
  const place = (adapter: Exotel.ExotelProvider, to: string, from: string | undefined, cfg = config) =>
    adapter.calls.place({
      config: cfg,
      to,
      from,
      attemptId: 7,
      callbackUrl: "https://agentline.example/api/v1/telephony/callbacks/exotel/7",
      answerUrl: "https://agentline.example/api/v1/telephony/answer/exotel/7",
      whenAnswered: { _tag: "ConnectMediaStream", url: "ws://127.0.0.1:1/api/v1/telephony/media/exotel/tok", parameters: { attempt_id: "7" } },
      onEvent: () => Effect.void
    })

  it.effect("places a Connect Voice AI call with the stream, the ExoPhone and a status callback carrying its token", () =>
    withFake((fake, adapter) =>
      Effect.gen(function*() {
        fake.addExoPhone("acme1", "+918047491899")
        fake.behave("+919876543210", { answer: "no-answer" })
        const { providerCallId } = yield* place(adapter, "+919876543210", "+918047491899")
        const call = fake.call(providerCallId)!
        expect(call.options.streamUrl).toBe("ws://127.0.0.1:1/api/v1/telephony/media/exotel/tok?attempt_id=7")
        expect(call.options.events).toEqual(new Set(["answered", "terminal"]))
        expect(call.options.statusCallback).toBe(Exotel.Signature.withToken(config, "https://agentline.example/api/v1/telephony/callbacks/exotel/7"))
        expect((yield* adapter.calls.get({ config, providerCallId }))._tag).toBe("InProgress")
        // Exotel documents no request that ends a ringing call: the adapter says so rather than send one.
        const cannot = yield* Effect.flip(adapter.calls.hangUp({ config, providerCallId }))
        expect(cannot.retryable).toBe(false)
        expect(cannot.message).toContain("no request to end a call")
        // It rings on until Exotel gives up on it.
        expect(yield* Effect.promise(() => call.ended)).toBe("no-answer")
        // Over: nothing to do.
        yield* adapter.calls.hangUp({ config, providerCallId })
        expect((yield* adapter.calls.get({ config, providerCallId: "nosuchcall" }))._tag).toBe("Unknown")
      }),
      // The call must still ring when it is looked up and refused a hang-up: 50 ms to Exotel's second
      // gives its ring time a second or more, which a loaded machine does not overrun (5 ms did).
      50
    ))

  it.effect("refusals: no caller id, a number Exotel refuses, wrong credentials (not retryable); 429 and 5xx (retryable)", () =>
    withFake((fake, adapter) =>
      Effect.gen(function*() {
        fake.addExoPhone("acme1", "+918047491899")
        expect((yield* Effect.flip(place(adapter, "+919876543210", undefined))).message).toContain("caller id")
        const invalid = yield* Effect.flip(place(adapter, "12", "+918047491899"))
        expect(invalid).toMatchObject({ retryable: false })
        expect(invalid.message).toContain("12 is not a valid phone number")
        const denied = yield* Effect.flip(place(adapter, "+919876543210", "+918047491899", { ...config, api_token: "wrong-token" }))
        expect(denied).toMatchObject({ retryable: false })
        expect(denied.message).toContain("HTTP 401")
        fake.failNext(429)
        expect(yield* Effect.flip(place(adapter, "+919876543210", "+918047491899"))).toMatchObject({ retryable: true })
        fake.failNext(503)
        const unavailable = yield* Effect.flip(place(adapter, "+919876543210", "+918047491899"))
        expect(unavailable).toMatchObject({ retryable: true })
        for (const failure of [invalid, denied, unavailable]) {
          expect(failure.message).not.toContain("acme1")
          expect(failure.message).not.toContain("exo-token")
          expect(failure.message).not.toContain("exo-key")
        }
      })
    ))
})
