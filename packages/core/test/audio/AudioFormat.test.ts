import { describe, expect, it } from "@effect/vitest"
import { bytesPerSample, durationMs, frameBytes } from "../../src/audio/AudioFormat.js"

describe("audio formats", () => {
  it("durations follow the sample width and rate", () => {
    expect(durationMs({ encoding: "mulaw", sampleRate: 8000 }, 160)).toBe(20)
    expect(durationMs({ encoding: "l16le", sampleRate: 16000 }, 640)).toBe(20)
    expect(durationMs({ encoding: "l16be", sampleRate: 24000 }, 960)).toBe(20)
  })

  it("a 20 ms frame is whole samples: 160 bytes of G.711 at 8 kHz, 640 of L16 at 16 kHz, never empty", () => {
    expect(frameBytes({ encoding: "mulaw", sampleRate: 8000 }, 20)).toBe(160)
    expect(frameBytes({ encoding: "alaw", sampleRate: 8000 }, 20)).toBe(160)
    expect(frameBytes({ encoding: "l16le", sampleRate: 16000 }, 20)).toBe(640)
    expect(frameBytes({ encoding: "l16be", sampleRate: 22050 }, 20)).toBe(882)
    expect(frameBytes({ encoding: "l16le", sampleRate: 8000 }, 0)).toBe(bytesPerSample("l16le"))
  })
})
