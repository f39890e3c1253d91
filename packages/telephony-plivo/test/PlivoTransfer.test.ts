/**
 * Transfers on a Plivo-compatible carrier, the pure parts: the `aleg_url` and its token, the `<Dial>`
 * document, the dial's callbacks as a result, and what each result request is answered. (The contract
 * suites of Plivo and Vobiz run the transfers against their fakes.)
 */
import type { WebhookRequest } from "@agentline/telephony-kit/TelephonyProvider"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { dialect } from "../src/Plivo.js"
import * as PlivoCompatible from "../src/PlivoCompatible.js"
import * as Transfer from "../src/Transfer.js"
import { parseDial } from "../src/testing/FakeDial.js"

const RESULT = "https://calls.example.com/api/v1/telephony/transfer-result/8a0c"
const TOKEN = "auth-token"
const config = { auth_id: "MA1", auth_token: TOKEN, amd_enabled: false }
const webhooks = PlivoCompatible.webhooks(dialect)

const request = (url: string, params: Record<string, string> = {}): WebhookRequest => ({
  method: "POST",
  url,
  headers: {},
  rawBody: new TextEncoder().encode(new URLSearchParams(params).toString())
})

describe("the transfer's document, fetched from the aleg_url", () => {
  const aleg = Transfer.alegUrl(TOKEN, { target: "+14155550111", from: "+14155550100", timeoutSeconds: 25, resultUrl: RESULT })

  it("carries the dial on the result URL, with a token that holds only for those values and that auth token", () => {
    expect(aleg.startsWith(`${RESULT}?`)).toBe(true)
    expect(Transfer.dialOf(TOKEN, aleg)).toEqual({ target: "+14155550111", timeoutSeconds: 25, callerId: "14155550100" })
    expect(Transfer.dialOf("another-token", aleg)).toBe("forged")
    // Vobiz signs the URL without its query: a changed target must not pass.
    expect(Transfer.dialOf(TOKEN, aleg.replace("14155550111", "19005550199"))).toBe("forged")
    expect(Transfer.dialOf(TOKEN, aleg.replace("timeout=25", "timeout=600"))).toBe("forged")
    expect(Transfer.dialOf(TOKEN, aleg.replace("/8a0c?", "/other?"))).toBe("forged")
    expect(Transfer.dialOf(TOKEN, RESULT)).toBeUndefined()
  })

  it("is a <Dial> of the number (digits) or SIP URI, reporting to the result URL, which the carrier can run", () => {
    const number = Transfer.dialDocument(aleg, { target: "+14155550111", timeoutSeconds: 25, callerId: "14155550100" })
    expect(number).toContain(`<Dial action="${RESULT}" method="POST" redirect="true" timeout="25" callerId="14155550100" callbackUrl="${RESULT}" callbackMethod="POST"><Number>14155550111</Number></Dial>`)
    expect(parseDial(number)).toEqual({ target: "14155550111", action: RESULT, callbackUrl: RESULT, timeoutSeconds: 25, callerId: "14155550100" })
    const sip = Transfer.dialDocument(aleg, { target: "sip:desk@pbx.example.com", timeoutSeconds: 25, callerId: "" })
    expect(sip).toContain("<User>sip:desk@pbx.example.com</User>")
    expect(sip).not.toContain("callerId=")
    expect(parseDial(sip)).toMatchObject({ target: "sip:desk@pbx.example.com" })
  })

  it.effect("the fetch is no result and is answered with the dial; a forged one is refused", () =>
    Effect.gen(function*() {
      expect(yield* webhooks.parseTransferResult!({ config, request: request(aleg, { CallUUID: "c1", CallStatus: "in-progress" }) })).toBeUndefined()
      const answer = webhooks.transferAnswer!({ result: undefined, request: request(aleg, { CallUUID: "c1" }), config })
      expect(answer.body).toContain("<Number>14155550111</Number>")
      const forged = yield* Effect.either(webhooks.parseTransferResult!({ config, request: request(aleg.replace("14155550111", "19005550199")) }))
      expect(Either.isLeft(forged) && !forged.left.retryable).toBe(true)
      // Not trusted without the configuration that checks the token.
      expect(webhooks.transferAnswer!({ result: undefined, request: request(aleg) }).body).not.toContain("<Dial")
    }))
})

describe("the dial's callbacks as the transfer's result", () => {
  it("DialStatus of the action (matrix), DialAction=answer of the callbackUrl; other notices are progress", () => {
    const matrix: ReadonlyArray<readonly [Record<string, string>, string | undefined]> = [
      [{ DialStatus: "completed", DialHangupCause: "NORMAL_CLEARING" }, "answered"],
      [{ DialStatus: "busy", DialHangupCause: "USER_BUSY" }, "busy"],
      [{ DialStatus: "no-answer" }, "no_answer"],
      [{ DialStatus: "timeout" }, "no_answer"],
      [{ DialStatus: "failed" }, "failed"],
      [{ DialStatus: "cancel" }, "failed"],
      [{ DialAction: "answer", DialBLegStatus: "answer" }, "answered"],
      [{ DialAction: "connected" }, undefined],
      [{ DialAction: "hangup", DialBLegStatus: "hangup" }, undefined]
    ]
    for (const [params, outcome] of matrix) {
      const parsed = Transfer.parseResult(Object.entries(params), 7)
      expect([params, typeof parsed === "string" ? parsed : parsed?.outcome]).toEqual([params, outcome])
    }
    expect(Transfer.parseResult(Object.entries({ DialStatus: "busy", DialHangupCause: "USER_BUSY" }), 7)).toEqual({
      outcome: "busy",
      at: 7,
      cause: "DialStatus=busy, USER_BUSY"
    })
    expect(typeof Transfer.parseResult(Object.entries({ DialStatus: "weird" }), 7)).toBe("string")
    expect(typeof Transfer.parseResult(Object.entries({ CallUUID: "c1" }), 7)).toBe("string")
  })

  it("the action is answered with a hang-up (the caller's call ends with the dial); callbackUrl notices with nothing", () => {
    const result = { outcome: "no_answer" as const, at: 1 }
    expect(webhooks.transferAnswer!({ result, request: request(RESULT, { DialStatus: "no-answer" }), config }).body).toContain("<Response><Hangup/></Response>")
    expect(webhooks.transferAnswer!({ result: undefined, request: request(RESULT, { DialAction: "hangup" }), config }).body).toContain("<Response></Response>")
  })
})
