/**
 * Twilio's warm transfer documents and parameters (pure): the caller's hold in the conference, the
 * target's call with the briefing, what the caller hears when nobody answers, the result URL naming the
 * caller — each read back by the fake's TwiML parser, which refuses what Twilio would.
 */
import { describe, expect, it } from "@effect/vitest"
import { Twilio } from "../src/index.js"
import { parse } from "../src/testing/FakeTwiml.js"

const T = Twilio.Transfer
const CALLER = "CA0123456789abcdef0123456789abcdef"
const RESULT = "https://calls.example.com/api/v1/telephony/transfer-result/7f1c?x=1"

describe("twilio warm transfer", () => {
  it("holds the caller in a conference named after its call that it cannot start, and hangs up once it is over", () => {
    expect(parse(T.holdDocument(CALLER))).toEqual([
      { _tag: "Conference", name: `agentline-${CALLER}`, startOnEnter: false, endOnExit: true, waitUrl: undefined, action: undefined },
      { _tag: "Hangup" }
    ])
  })

  it("calls the target with the briefing said first, then the conference, which starts as the person joins", () => {
    const params = T.targetCall({ providerCallId: CALLER, target: "+14155550111", timeoutSeconds: 3, resultUrl: RESULT }, "+14155550100", "Ann <VIP> & co")
    const get = (name: string) => params.filter(([n]) => n === name).map(([, v]) => v)
    expect(get("To")).toEqual(["+14155550111"])
    expect(get("From")).toEqual(["+14155550100"])
    // Twilio rings 5 to 600 seconds.
    expect(get("Timeout")).toEqual(["5"])
    expect(get("StatusCallbackEvent")).toEqual(["answered", "completed"])
    expect(get("StatusCallback")).toEqual([`${RESULT}&warm_caller=${CALLER}`])
    expect(parse(get("Twiml")[0]!)).toEqual([
      { _tag: "Say", text: "Ann <VIP> & co" },
      { _tag: "Conference", name: `agentline-${CALLER}`, startOnEnter: true, endOnExit: true, waitUrl: undefined, action: undefined }
    ])
    // An empty briefing says nothing.
    expect(parse(T.briefingDocument(CALLER, " "))?.map((v) => v._tag)).toEqual(["Conference"])
  })

  it("tells a caller nobody took the transfer, then hangs up", () => {
    expect(parse(T.unansweredDocument())).toEqual([{ _tag: "Say", text: T.UNANSWERED_SENTENCE }, { _tag: "Hangup" }])
  })

  it("names the caller in the result URL of a warm transfer only", () => {
    expect(T.warmCaller(T.warmResultUrl(RESULT, CALLER))).toBe(CALLER)
    expect(T.warmCaller(RESULT)).toBeUndefined()
    expect(T.warmCaller("not a url")).toBeUndefined()
  })

  it("reads the target leg's status callbacks as the result: in-progress answered, no-answer, busy, failed; ringing is progress", () => {
    const result = (status: string) => T.parseResult([["CallStatus", status]], 1)
    expect(result("in-progress")).toMatchObject({ outcome: "answered", cause: "CallStatus=in-progress" })
    expect(result("no-answer")).toMatchObject({ outcome: "no_answer" })
    expect(result("busy")).toMatchObject({ outcome: "busy" })
    expect(result("failed")).toMatchObject({ outcome: "failed" })
    expect(result("ringing")).toBeUndefined()
  })
})
