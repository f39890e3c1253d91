import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { decodeToPcm16, durationMs, encodePcm16, makeConverter, makeResampler, toWav } from "../src/Audio.js"
import { frameBytes, makeFramer } from "../src/Frames.js"

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

  it.prop("L16 in either byte order round-trips any samples", [FastCheck.array(int16)], ([samples]) => {
    const pcm = Int16Array.from(samples)
    for (const encoding of ["l16le", "l16be"] as const) {
      expect([...decodeToPcm16(encoding, encodePcm16(encoding, pcm))]).toEqual(samples)
    }
    const le = encodePcm16("l16le", pcm)
    const be = encodePcm16("l16be", pcm)
    for (let i = 0; i + 1 < le.length; i += 2) expect([le[i], le[i + 1]]).toEqual([be[i + 1], be[i]])
  })

  it("durations follow the sample width and rate", () => {
    expect(durationMs({ encoding: "mulaw", sampleRate: 8000 }, 160)).toBe(20)
    expect(durationMs({ encoding: "l16le", sampleRate: 16000 }, 640)).toBe(20)
    expect(durationMs({ encoding: "l16be", sampleRate: 24000 }, 960)).toBe(20)
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
})

describe("Converter and WAV", () => {
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

  it("a WAV file has the RIFF sizes, format code, rate and the audio", () => {
    const wav = toWav({ encoding: "mulaw", sampleRate: 8000 }, new Uint8Array(160).fill(0xff))
    const view = new DataView(wav.buffer)
    expect(new TextDecoder().decode(wav.slice(0, 4))).toBe("RIFF")
    expect(view.getUint32(4, true)).toBe(36 + 160)
    expect(view.getUint16(20, true)).toBe(7)
    expect(view.getUint32(24, true)).toBe(8000)
    expect(view.getUint16(34, true)).toBe(8)
    expect(view.getUint32(40, true)).toBe(160)
    expect(wav.length).toBe(204)
    const be = toWav({ encoding: "l16be", sampleRate: 16000 }, Uint8Array.from([0x01, 0x02]))
    expect([...be.slice(44)]).toEqual([0x02, 0x01])
    expect(new DataView(be.buffer).getUint16(20, true)).toBe(1)
  })
})

describe("Framer", () => {
  it.prop(
    "cuts any byte stream into whole frames and a last partial of whole samples",
    [FastCheck.array(FastCheck.uint8Array({ maxLength: 700 }), { maxLength: 6 })],
    ([chunks]) => {
      const size = frameBytes({ encoding: "l16le", sampleRate: 16000 }, 20)
      expect(size).toBe(640)
      const framer = makeFramer(size, 2)
      const frames = chunks.flatMap((chunk) => [...framer.push(chunk)])
      const rest = framer.flush()
      const total = chunks.reduce((n, c) => n + c.length, 0)
      expect(frames.every((f) => f.length === size)).toBe(true)
      expect(frames.length).toBe(Math.floor(total / size))
      expect(rest?.length ?? 0).toBe((total % size) - ((total % size) % 2))
      expect([...frames.flatMap((f) => [...f]), ...(rest ?? [])]).toEqual(chunks.flatMap((c) => [...c]).slice(0, frames.length * size + (rest?.length ?? 0)))
    }
  )
})
