import { describe, expect, it } from "@effect/vitest"
import { instructionFor } from "../../src/calls/Answers.js"
import type { AnsweredBy, CallEvent } from "@agentline/telephony-kit/TelephonyProvider"

const stream = { _tag: "ConnectMediaStream", url: "wss://h/media/p/t", parameters: {} } as const
const answered = (answeredBy?: AnsweredBy): CallEvent => ({
  type: "answered",
  providerCallId: "c",
  at: 0,
  ...(answeredBy !== undefined ? { answeredBy } : {})
})

describe("what an answered call of ours is told", () => {
  it("a person (or an unknown answerer) is connected; a machine or a fax is hung up on", () => {
    for (const who of [undefined, "human", "unknown"] as const) {
      expect(instructionFor({ open: true, events: [answered(who)], whenAnswered: stream })).toEqual(stream)
    }
    for (const who of ["machine", "fax"] as const) {
      expect(instructionFor({ open: true, events: [answered(who)], whenAnswered: stream })).toEqual({ _tag: "Reject", reason: "" })
    }
    expect(instructionFor({ open: true, events: [], whenAnswered: { _tag: "KeepOpen" } })).toEqual({ _tag: "KeepOpen" })
  })

  it("an attempt that is already over is hung up on, whoever answered", () => {
    for (const events of [[], [answered("human")]]) {
      expect(instructionFor({ open: false, events, whenAnswered: stream })).toEqual({ _tag: "Reject", reason: "" })
    }
  })
})
