/**
 * Vonage transfers, the pure parts: the NCCO the call is moved to and the connected leg's events as the
 * transfer's result. (The contract suite, `Contract.test.ts`, runs the transfers against the fake.)
 */
import { describe, expect, it } from "@effect/vitest"
import * as Transfer from "../src/Transfer.js"

const RESULT = "https://calls.example.com/api/v1/telephony/transfer-result/8a0c"

describe("vonage transfer NCCO", () => {
  it("connects a phone number (digits) from the caller id, reporting the leg's events to the result URL", () => {
    expect(Transfer.transferNcco({ target: "+14155550111", from: "+14155550100", timeoutSeconds: 25, resultUrl: RESULT })).toEqual([{
      action: "connect",
      from: "14155550100",
      timeout: 25,
      endpoint: [{ type: "phone", number: "14155550111" }],
      eventUrl: [RESULT],
      eventMethod: "POST"
    }])
  })

  it("connects a SIP URI; without a caller id Vonage picks one of the application's numbers", () => {
    expect(Transfer.transferNcco({ target: "sip:desk@pbx.example.com", from: undefined, timeoutSeconds: 30, resultUrl: RESULT })).toMatchObject([{
      randomFromNumber: true,
      endpoint: [{ type: "sip", uri: "sip:desk@pbx.example.com" }]
    }])
    expect(Transfer.transferNcco({ target: "desk", from: undefined, timeoutSeconds: 30, resultUrl: RESULT })).toBeUndefined()
  })
})

describe("vonage connected leg's events as the transfer's result", () => {
  it("every status (matrix); progress and statusless events are no result; a body that is not JSON is refused", () => {
    const matrix: ReadonlyArray<readonly [string, string | undefined]> = [
      ["started", undefined],
      ["ringing", undefined],
      ["answered", "answered"],
      ["completed", "answered"],
      ["busy", "busy"],
      ["rejected", "busy"],
      ["timeout", "no_answer"],
      ["unanswered", "no_answer"],
      ["failed", "failed"],
      ["cancelled", "failed"]
    ]
    for (const [status, outcome] of matrix) {
      const parsed = Transfer.parseResult(JSON.stringify({ uuid: "leg-b", conversation_uuid: "CON-1", status }), 5)
      expect([status, typeof parsed === "string" ? parsed : parsed?.outcome]).toEqual([status, outcome])
    }
    expect(Transfer.parseResult(JSON.stringify({ uuid: "b", status: "failed", detail: "invalid_number" }), 5)).toEqual({
      outcome: "failed",
      at: 5,
      cause: "status=failed: invalid_number"
    })
    expect(Transfer.parseResult(JSON.stringify({ uuid: "a", conversation_uuid_from: "CON-1", conversation_uuid_to: "CON-2" }), 5)).toBeUndefined()
    expect(typeof Transfer.parseResult("not json", 5)).toBe("string")
    expect(typeof Transfer.parseResult("[1]", 5)).toBe("string")
  })
})
