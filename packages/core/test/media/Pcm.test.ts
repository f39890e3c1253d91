import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as Pcm from "../../src/media/Pcm.js"

const samples = FastCheck.array(FastCheck.integer({ min: -32768, max: 32767 }), { maxLength: 400 }).map((a) => Int16Array.from(a))

describe("PCM conversions", () => {
  it("L16 in either byte order round-trips exactly", () =>
    FastCheck.assert(FastCheck.property(samples, FastCheck.constantFrom("l16le" as const, "l16be" as const), FastCheck.constantFrom(8000, 16000, 24000), (pcm, encoding, sampleRate) => {
      const frame = Pcm.encode({ sampleRate, samples: pcm }, { encoding, sampleRate })
      expect(frame.data.length).toBe(pcm.length * 2)
      expect(Pcm.decode(frame)).toEqual({ sampleRate, samples: pcm })
    })))

  it("L16 byte order is the provider's: little- or big-endian", () => {
    const frame = Pcm.encode({ sampleRate: 16000, samples: Int16Array.of(0x0102) }, { encoding: "l16be", sampleRate: 16000 })
    expect([...frame.data]).toEqual([0x01, 0x02])
    expect([...Pcm.encode({ sampleRate: 16000, samples: Int16Array.of(0x0102) }, { encoding: "l16le", sampleRate: 16000 }).data]).toEqual([0x02, 0x01])
  })

  it("G.711 quantizes once: decoding and encoding again changes nothing (µ-law and A-law)", () =>
    FastCheck.assert(FastCheck.property(samples, FastCheck.constantFrom("mulaw" as const, "alaw" as const), (pcm, encoding) => {
      const format = { encoding, sampleRate: 8000 }
      const once = Pcm.decode(Pcm.encode({ sampleRate: 8000, samples: pcm }, format)).samples
      expect(once.length).toBe(pcm.length)
      expect(Pcm.decode(Pcm.encode({ sampleRate: 8000, samples: once }, format)).samples).toEqual(once)
      // The error of G.711 stays within a few percent of full scale.
      for (let i = 0; i < pcm.length; i++) expect(Math.abs(once[i]! - pcm[i]!)).toBeLessThanOrEqual(1100)
    })))

  it("resampling keeps the duration and the level of a steady signal", () => {
    const steady = new Int16Array(160).fill(1000)
    const up = Pcm.resample(steady, 8000, 16000)
    expect(up.length).toBe(320)
    expect(up.every((v) => v === 1000)).toBe(true)
    const down = Pcm.resample(steady, 8000, 24000 / 4)
    expect(down.length).toBe(120)
    expect(Pcm.encode({ sampleRate: 16000, samples: new Int16Array(320) }, { encoding: "mulaw", sampleRate: 8000 }).data.length).toBe(160)
    expect(Pcm.resample(new Int16Array(0), 8000, 16000).length).toBe(0)
  })
})
