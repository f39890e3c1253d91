import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as Pcm from "../../src/audio/Pcm.js"
import { decodeToPcm16, encodePcm16, makeConverter, makeResampler } from "../../src/audio/Pcm.js"

const int16 = FastCheck.integer({ min: -32768, max: 32767 })

describe("G.711 and L16", () => {
  it("every µ-law and A-law byte decodes to a sample that encodes back to the same byte (µ-law's -0 becomes +0)", () => {
    for (const encoding of ["mulaw", "alaw"] as const) {
      const all = Uint8Array.from({ length: 256 }, (_, i) => i)
      const back = encodePcm16(encoding, decodeToPcm16(encoding, all))
      for (let i = 0; i < 256; i++) {
        const expected = encoding === "mulaw" && i === 0x7f ? 0xff : i
        expect(back[i], `${encoding} ${i}`).toBe(expected)
      }
    }
  })

  it("µ-law silence is 0xFF and full scale keeps its sign", () => {
    expect([...encodePcm16("mulaw", Int16Array.from([0, 32767, -32768]))]).toEqual([0xff, 0x80, 0x00])
  })

  it.prop("L16 in either byte order round-trips any samples, as frames too", [FastCheck.array(int16), FastCheck.constantFrom(8000, 16000, 24000)], ([samples, sampleRate]) => {
    const pcm = Int16Array.from(samples)
    for (const encoding of ["l16le", "l16be"] as const) {
      expect([...decodeToPcm16(encoding, encodePcm16(encoding, pcm))]).toEqual(samples)
      const frame = Pcm.encode({ sampleRate, samples: pcm }, { encoding, sampleRate })
      expect(frame.data.length).toBe(pcm.length * 2)
      expect(Pcm.decode(frame)).toEqual({ sampleRate, samples: pcm })
    }
    const le = encodePcm16("l16le", pcm)
    const be = encodePcm16("l16be", pcm)
    for (let i = 0; i + 1 < le.length; i += 2) expect([le[i], le[i + 1]]).toEqual([be[i + 1], be[i]])
  })

  it("L16 byte order is the provider's: little- or big-endian", () => {
    expect([...Pcm.encode({ sampleRate: 16000, samples: Int16Array.of(0x0102) }, { encoding: "l16be", sampleRate: 16000 }).data]).toEqual([0x01, 0x02])
    expect([...Pcm.encode({ sampleRate: 16000, samples: Int16Array.of(0x0102) }, { encoding: "l16le", sampleRate: 16000 }).data]).toEqual([0x02, 0x01])
  })

  it.prop("G.711 quantizes once: decoding and encoding again changes nothing, within a few percent of full scale", [FastCheck.array(int16, { maxLength: 400 }), FastCheck.constantFrom("mulaw" as const, "alaw" as const)], ([samples, encoding]) => {
    const pcm = Int16Array.from(samples)
    const format = { encoding, sampleRate: 8000 }
    const once = Pcm.decode(Pcm.encode({ sampleRate: 8000, samples: pcm }, format)).samples
    expect(once.length).toBe(pcm.length)
    expect(Pcm.decode(Pcm.encode({ sampleRate: 8000, samples: once }, format)).samples).toEqual(once)
    for (let i = 0; i < pcm.length; i++) expect(Math.abs(once[i]! - pcm[i]!)).toBeLessThanOrEqual(1100)
  })
})

describe("Resampler", () => {
  const rates = FastCheck.constantFrom(8000, 16000, 22050, 24000, 48000)

  it.prop(
    "feeding frames one by one gives the same samples as feeding them joined",
    [rates, rates, FastCheck.array(FastCheck.array(int16, { maxLength: 200 }), { maxLength: 8 })],
    ([from, to, chunks]) => {
      const whole = makeResampler(from, to).push(Int16Array.from(chunks.flat()))
      const streaming = makeResampler(from, to)
      const pieces = chunks.flatMap((chunk) => [...streaming.push(Int16Array.from(chunk))])
      expect(pieces).toEqual([...whole])
    }
  )

  it.prop(
    "the output length follows the rate ratio (within one sample)",
    [rates, rates, FastCheck.integer({ min: 1, max: 4000 })],
    ([from, to, length]) => {
      const out = makeResampler(from, to).push(new Int16Array(length).fill(1000))
      const expected = ((length - 1) * to) / from + 1
      expect(Math.abs(out.length - expected)).toBeLessThanOrEqual(1)
    }
  )

  it("a constant signal stays constant and a ramp stays a ramp when upsampling 8 → 16 kHz", () => {
    expect([...makeResampler(8000, 16000).push(Int16Array.from([500, 500, 500]))]).toEqual([500, 500, 500, 500, 500])
    expect([...makeResampler(8000, 16000).push(Int16Array.from([0, 100, 200]))]).toEqual([0, 50, 100, 150, 200])
  })

  it("lowering the rate removes a tone above the new Nyquist frequency (no loud alias)", () => {
    // 7 kHz at 16 kHz, decimated to 8 kHz (Nyquist 4 kHz): the moving average attenuates it.
    const tone = Int16Array.from({ length: 1600 }, (_, i) => Math.round(10000 * Math.sin((2 * Math.PI * 7000 * i) / 16000)))
    const out = makeResampler(16000, 8000).push(tone)
    const rms = Math.sqrt(out.slice(10).reduce((sum, x) => sum + x * x, 0) / (out.length - 10))
    expect(rms).toBeLessThan(10000 / Math.SQRT2 / 2)
  })

  it.prop(
    "in one piece: as many samples as the duration asks, the streaming resampler's as far as they go",
    [rates, rates, FastCheck.array(int16, { minLength: 1, maxLength: 600 })],
    ([from, to, samples]) => {
      const pcm = Int16Array.from(samples)
      const once = Pcm.resample(pcm, from, to)
      expect(once.length).toBe(Math.max(1, Math.round((pcm.length * to) / from)))
      const streamed = makeResampler(from, to).push(pcm)
      expect([...once.subarray(0, streamed.length)]).toEqual([...streamed.subarray(0, once.length)])
      for (const sample of once.subarray(streamed.length)) expect(sample).toBe(streamed[streamed.length - 1])
    }
  )

  it("in one piece: a steady signal keeps its level, nothing stays nothing, frames are encoded at the stream's rate", () => {
    const steady = new Int16Array(160).fill(1000)
    expect([...Pcm.resample(steady, 8000, 16000)]).toEqual(new Array(320).fill(1000))
    expect([...Pcm.resample(steady, 8000, 6000)]).toEqual(new Array(120).fill(1000))
    expect(Pcm.resample(new Int16Array(0), 8000, 16000).length).toBe(0)
    expect(Pcm.encode({ sampleRate: 16000, samples: new Int16Array(320) }, { encoding: "mulaw", sampleRate: 8000 }).data.length).toBe(160)
  })
})

describe("Converter", () => {
  it.prop(
    "L16 split at odd byte offsets converts like the whole buffer",
    [FastCheck.array(int16, { minLength: 1, maxLength: 300 }), FastCheck.array(FastCheck.integer({ min: 0, max: 600 }), { maxLength: 5 })],
    ([samples, cuts]) => {
      const bytes = encodePcm16("l16le", Int16Array.from(samples))
      const from = { encoding: "l16le" as const, sampleRate: 8000 }
      const to = { encoding: "mulaw" as const, sampleRate: 8000 }
      const whole = makeConverter(from, to).push(bytes)
      const converter = makeConverter(from, to)
      const points = [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b)
      const parts: Array<number> = []
      let start = 0
      for (const point of [...points, bytes.length]) {
        parts.push(...converter.push(bytes.slice(start, point)))
        start = point
      }
      expect(parts).toEqual([...whole])
    }
  )
})
