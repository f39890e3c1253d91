import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import {
  makeCallRecord,
  mix,
  recordAgentAudio,
  recordCallerAudio,
  recordings,
  recordTurn,
  makeTrack,
  track,
  transcriptJson,
  writeTrack,
  transcriptText
} from "../../src/session/CallRecord.js"

const wavInfo = (wav: Uint8Array) => {
  const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength)
  return { rate: view.getUint32(24, true), bits: view.getUint16(34, true), samples: view.getUint32(40, true) / 2 }
}
const samplesOf = (wav: Uint8Array) => new Int16Array(wav.slice(44).buffer)

describe("CallRecord", () => {
  it("each party's audio lands at its call time; the WAVs last exactly the call, at the call's rate", () => {
    const record = makeCallRecord(8000)
    recordCallerAudio(record, { sampleRate: 8000, samples: new Int16Array(160).fill(1000) }, 100)
    recordAgentAudio(record, { sampleRate: 16000, samples: new Int16Array(320).fill(-2000) }, 500)
    const files = recordings(record, 1000)
    for (const wav of [files.recording, files.user_recording, files.bot_recording]) expect(wavInfo(wav)).toEqual({ rate: 8000, bits: 16, samples: 8000 })
    const user = samplesOf(files.user_recording)
    expect([user[799], user[800], user[959], user[960]]).toEqual([0, 1000, 1000, 0])
    const bot = samplesOf(files.bot_recording)
    expect([bot[3999], bot[4000], bot[4159], bot[4160]]).toEqual([0, -2000, -2000, 0])
    const mixed = samplesOf(files.recording)
    expect([mixed[800], mixed[4000], mixed[6000]]).toEqual([1000, -2000, 0])
  })

  it("mixing clips at 16 bits instead of wrapping", () => {
    expect([...mix(Int16Array.of(30000, -30000, 5), Int16Array.of(30000, -30000))]).toEqual([32767, -32768, 5])
  })

  it("property: a track is the call's length and holds, at each place, the last audio written there (pages or not)", () => {
    FastCheck.assert(FastCheck.property(
      FastCheck.array(
        FastCheck.record({ atMs: FastCheck.integer({ min: -300, max: 3000 }), length: FastCheck.integer({ min: 1, max: 12000 }), rate: FastCheck.constantFrom(8000, 16000) }),
        { maxLength: 6 }
      ),
      FastCheck.integer({ min: 0, max: 4000 }),
      (pieces, durationMs) => {
        const paged = makeTrack(8000)
        // The reference: one flat array of the whole call, written sample by sample.
        const flat = new Int16Array(8000 * 5)
        pieces.forEach((p, i) => {
          const samples = new Int16Array(p.length).map((_, k) => i * 1000 + (k % 997) + 1)
          writeTrack(paged, samples, p.atMs)
          const offset = Math.round((p.atMs * 8000) / 1000)
          samples.forEach((v, k) => {
            if (offset + k >= 0 && offset + k < flat.length) flat[offset + k] = v
          })
        })
        const out = track(paged, durationMs)
        expect(out.length).toBe(Math.round((durationMs * 8000) / 1000))
        expect([...out]).toEqual([...flat.subarray(0, out.length)])
      }
    ))
  })

  it("a frame at another rate than the call's is resampled onto the track", () => {
    const record = makeCallRecord(8000)
    recordCallerAudio(record, { sampleRate: 16000, samples: new Int16Array(3200).fill(500) }, 1000)
    const user = track(record.caller, 2000)
    expect([user[7999], user[8000], user[9599], user[9600]]).toEqual([0, 500, 500, 0])
    expect(record.caller.pages.filter((p) => p !== undefined)).toHaveLength(1)
  })

  it("the transcript: the reference's lines in time order, and JSON with timings; blank turns are dropped", () => {
    const record = makeCallRecord(8000)
    recordTurn(record, { role: "user", text: "Yes please.", startMs: 2500, endMs: 3400 })
    recordTurn(record, { role: "assistant", text: "Hello Ada.", startMs: 0, endMs: 1200 })
    recordTurn(record, { role: "assistant", text: "Great, so", startMs: 3900, endMs: 4300, interrupted: true })
    recordTurn(record, { role: "user", text: "  ", startMs: 5000, endMs: 5100 })
    const start = Date.parse("2026-11-24T10:00:00.000Z")
    expect(transcriptText(record, start)).toBe(
      "[2026-11-24T10:00:00.000Z] assistant: Hello Ada.\n" +
        "[2026-11-24T10:00:02.500Z] user: Yes please.\n" +
        "[2026-11-24T10:00:03.900Z] assistant: Great, so\n"
    )
    expect(transcriptJson(record)).toEqual([
      { role: "assistant", text: "Hello Ada.", start_ms: 0, end_ms: 1200 },
      { role: "user", text: "Yes please.", start_ms: 2500, end_ms: 3400 },
      { role: "assistant", text: "Great, so", start_ms: 3900, end_ms: 4300, interrupted: true }
    ])
    expect(transcriptText(makeCallRecord(8000), start)).toBe("")
  })
})
