/**
 * The adapter's HTTP side against the fake Vonage (the contract suite runs the rest through the server).
 * Live clock: application JWTs carry real times, and the fake checks their expiry as Vonage does.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Vonage } from "../src/index.js"
import * as FakeVonage from "../src/testing/FakeVonage.js"

const account = { apiKey: "fakekey01", apiSecret: "fake-api-secret", signatureSecret: "fake-signature-secret" }

const withFake = <A, E>(use: (fake: FakeVonage.FakeVonage) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(Effect.promise(() => FakeVonage.start({ account, secondMillis: 20 })), use, (fake) => Effect.promise(fake.close))

const configOf = (applicationId: string, privateKey: string, extra: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Vonage.VonageConfig)({
    api_key: account.apiKey,
    api_secret: account.apiSecret,
    application_id: applicationId,
    private_key: privateKey,
    signature_secret: account.signatureSecret,
    ...extra
  })

describe("Vonage adapter against the fake", () => {
  it.live("binding a number points the application and moves the number to it; unbinding unlinks it only", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        const ours = fake.addApplication("agentline")
        const other = fake.addApplication("elsewhere")
        other.application.answerUrl = "https://elsewhere.example.com/answer"
        fake.own("+14155550100", other.application.id)
        const adapter = Vonage.make({ apiUrl: fake.url })
        const config = configOf(ours.application.id, ours.privateKey)
        const url = "https://calls.example.com/api/v1/telephony/inbound/vonage"
        const bound = yield* adapter.inbound!.configure({ config, address: "+14155550100", webhookUrl: url })
        expect(bound.ok).toBe(true)
        expect(bound.message).toContain(`left the application ${other.application.id}`)
        expect(fake.voiceUrl("+14155550100")).toBe(url)
        expect(ours.application.signedCallbacks).toBe(true)
        // Again: nothing to change, still fine.
        expect((yield* adapter.inbound!.configure({ config, address: "+14155550100", webhookUrl: url })).ok).toBe(true)
        const unbound = yield* adapter.inbound!.configure({ config, address: "+14155550100", webhookUrl: null })
        expect(unbound.ok).toBe(true)
        expect(fake.voiceUrl("+14155550100")).toBe(null)
        expect(ours.application.answerUrl).toBe(url)
        const unknown = yield* adapter.inbound!.configure({ config, address: "+14155550199", webhookUrl: url })
        expect(unknown).toMatchObject({ ok: false })
        expect(unknown.message).toContain("not a number of this Vonage account")
        const wrong = yield* adapter.inbound!.configure({ config: { ...config, api_secret: "wrong" }, address: "+14155550100", webhookUrl: url })
        expect(wrong.ok).toBe(false)
        expect(wrong.message).not.toContain("wrong")
      })
    ))

  it.live("calls need the signature secret and a valid private key; a bad application JWT is refused by Vonage", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        const ours = fake.addApplication("agentline")
        const stranger = fake.addApplication("stranger")
        const adapter = Vonage.make({ apiUrl: fake.url })
        const input = (config: Vonage.VonageConfig) => ({
          config,
          to: "+14155550100",
          from: "+14155550111",
          attemptId: 1,
          callbackUrl: "http://127.0.0.1:1/callbacks",
          answerUrl: "http://127.0.0.1:1/answer",
          whenAnswered: { _tag: "KeepOpen" } as const,
          onEvent: () => Effect.void
        })
        const { signature_secret: _, ...unsigned } = configOf(ours.application.id, ours.privateKey)
        const noSecret = yield* Effect.flip(adapter.calls.place(input(unsigned)))
        expect(noSecret).toMatchObject({ retryable: false })
        expect(noSecret.message).toContain("signature_secret")
        const badKey = yield* Effect.flip(adapter.calls.place(input(configOf(ours.application.id, "not a key"))))
        expect(badKey.message).toContain("private_key")
        // Signed with another application's key: Vonage answers 401, not retryable.
        const forged = yield* Effect.flip(adapter.calls.place(input(configOf(ours.application.id, stranger.privateKey))))
        expect(forged).toMatchObject({ retryable: false })
        expect(forged.message).toContain("HTTP 401")
        fake.failNext(429, 1)
        const limited = yield* Effect.flip(adapter.calls.place(input(configOf(ours.application.id, ours.privateKey))))
        expect(limited).toMatchObject({ retryable: true })
        expect(limited.message).toContain("HTTP 429")
        // Ringing for long (scaled) minutes, so the call is still in progress when asked, however loaded the machine.
        fake.behave("+14155550100", { answer: "human", ringSeconds: 6000 })
        const placed = yield* adapter.calls.place(input(configOf(ours.application.id, ours.privateKey)))
        expect(fake.call(placed.providerCallId)?.to).toBe("14155550100")
        expect((yield* adapter.calls.get({ config: configOf(ours.application.id, ours.privateKey), providerCallId: placed.providerCallId }))._tag).toBe("InProgress")
      })
    ))
})
