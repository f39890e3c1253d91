/**
 * What is Twilio's own, against the fake Twilio (the port's behaviour is the contract's,
 * `Contract.test.ts`): its refusals named by Twilio's codes, the caller id it wants, number setup
 * messages.
 */
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Twilio } from "../src/index.js"
import * as FakeTwilio from "../src/testing/FakeTwilio.js"

const account = { sid: "AC0000000000000000000000000000unit", token: "unit-auth-token-1234" }
const config = { account_sid: account.sid, auth_token: account.token, amd_enabled: false }

const withFake = <A, E>(f: (fake: FakeTwilio.FakeTwilio, twilio: Twilio.TwilioProvider) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.promise(() => FakeTwilio.start({ accounts: [account], secondMillis: 10 })),
    (fake) => Effect.flatMap(Twilio.make({ apiUrl: fake.url }).pipe(Effect.provide(FetchHttpClient.layer)), (twilio) => f(fake, twilio)),
    (fake) => Effect.promise(() => fake.close())
  )

const place = (twilio: Twilio.TwilioProvider, overrides: Partial<Parameters<Twilio.TwilioProvider["calls"]["place"]>[0]> = {}) =>
  twilio.calls.place({
    config,
    to: "+14155550100",
    from: "+14155550199",
    attemptId: 1,
    callbackUrl: "http://127.0.0.1:9/callbacks",
    answerUrl: "http://127.0.0.1:9/answer",
    whenAnswered: { _tag: "KeepOpen" },
    onEvent: () => Effect.void,
    ...overrides
  })

describe("the Twilio adapter against the fake", () => {
  it.live("refusals name Twilio's code and message, are not retryable, and never carry the credentials", () =>
    withFake((fake, twilio) =>
      Effect.gen(function*() {
        fake.behave("+14155550111", { answer: "invalid" })
        const invalid = yield* Effect.flip(place(twilio, { to: "+14155550111" }))
        expect(invalid).toMatchObject({ provider: "twilio", retryable: false })
        expect(invalid.message).toContain("21211")
        expect(invalid.message).toContain("+14155550111")
        const unauthorized = yield* Effect.flip(place(twilio, { config: { ...config, auth_token: "wrong-token-5678" } }))
        expect(unauthorized.message).toContain("20003")
        expect(unauthorized.retryable).toBe(false)
        const noCaller = yield* Effect.flip(place(twilio, { from: undefined }))
        expect(noCaller.message).toContain("caller id")
        fake.failNext(503)
        const unavailable = yield* Effect.flip(place(twilio))
        expect(unavailable.retryable).toBe(true)
        fake.failNext(429)
        expect((yield* Effect.flip(place(twilio))).retryable).toBe(true)
        for (const e of [invalid, unauthorized, unavailable]) {
          expect(e.message).not.toContain(account.token)
          expect(e.message).not.toContain("wrong-token-5678")
        }
      })))

  it.live("a caller id the account does not own is refused as Twilio does (21210)", () =>
    withFake((fake, twilio) =>
      Effect.gen(function*() {
        fake.addNumber(account.sid, "+14155550199")
        const refused = yield* Effect.flip(place(twilio, { from: "+14155550188" }))
        expect(refused.message).toContain("21210")
        expect((yield* place(twilio)).providerCallId).toMatch(/^CA/)
      })))

  it.live("number setup: an unknown number or a failing API is a warning in Twilio's words", () =>
    withFake((fake, twilio) =>
      Effect.gen(function*() {
        fake.addNumber(account.sid, "+14155550123")
        const url = "https://calls.example.com/api/v1/telephony/inbound/twilio"
        const unknown = yield* twilio.inbound!.configure({ config, address: "+14155550999", webhookUrl: url })
        expect(unknown).toEqual({ ok: false, message: "Twilio: the account has no incoming phone number +14155550999" })
        fake.failNext(500)
        const failing = yield* twilio.inbound!.configure({ config, address: "+14155550123", webhookUrl: url })
        expect(failing.ok).toBe(false)
        expect(failing.message).toContain("20500")
        expect(failing.message).not.toContain(account.token)
      })))
})
