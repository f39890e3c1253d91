/** The web call's wire as plain functions (docs/web-calls.md). */
import { describe, expect, it } from "@effect/vitest"
import { encodeAudio, FRAME_BYTES, parseClientMessage, WIRE_SAMPLE_RATE } from "../src/web-calls/WebCallWire.js"

describe("web call wire", () => {
  it("the browser may only hang up; anything else is ignored", () => {
    expect(parseClientMessage(`{"type":"hangup"}`)).toEqual({ type: "hangup" })
    for (const other of [`{"type":"clear"}`, `"hangup"`, `null`, `[]`, `not json`, `{"type":"hangup"`, `{"type":"hangup","x":"${"a".repeat(2000)}"}`]) {
      expect(parseClientMessage(other)).toBeUndefined()
    }
  })

  it("audio goes out as 16-bit little-endian PCM at 16 kHz, resampled from the runtime's rate", () => {
    expect(FRAME_BYTES).toBe(640)
    const wire = encodeAudio({ sampleRate: WIRE_SAMPLE_RATE, samples: Int16Array.from([1, -2, 0x7fff, -0x8000]) })
    expect(Array.from(wire)).toEqual([1, 0, 0xfe, 0xff, 0xff, 0x7f, 0x00, 0x80])
    // 20 ms at 8 kHz is 20 ms at the wire's rate.
    expect(encodeAudio({ sampleRate: 8000, samples: new Int16Array(160) }).length).toBe(FRAME_BYTES)
  })
})
