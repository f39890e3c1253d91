import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import wavefile from "wavefile"
import { decodeToPcm16, encodePcm16 } from "../../src/audio/Pcm.js"
import { decodeWav, toWav } from "../../src/audio/WavAudio.js"

const wav = (channels: number, sampleRate: number, bitDepth: string, samples: ReadonlyArray<number> | ReadonlyArray<ReadonlyArray<number>>) => {
  const file = new wavefile.WaveFile()
  file.fromScratch(channels, sampleRate, bitDepth, samples)
  return file
}

describe("decodeWav", () => {
  it("reads 16-bit mono as it is, with its rate and duration", () => {
    const decoded = decodeWav(wav(1, 8000, "16", [0, 1000, -1000, 32767]).toBuffer())
    expect(Either.getOrThrow(decoded)).toMatchObject({ encoding: "pcm", sampleRate: 8000, channels: 1, bitsPerSample: 16, durationSeconds: 0.001 })
    expect([...Either.getOrThrow(decoded).samples]).toEqual([0, 1000, -1000, 32767])
  })
  it("averages stereo into mono", () => {
    const decoded = Either.getOrThrow(decodeWav(wav(2, 44100, "16", [[1000, -2000], [3000, 2000]]).toBuffer()))
    expect([...decoded.samples]).toEqual([2000, 0])
    expect(decoded.channels).toBe(2)
  })
  it("converts 8-bit, 24-bit, 32-bit, float, µ-law and A-law to 16-bit", () => {
    const cases: ReadonlyArray<[string, ReadonlyArray<number>, string, number]> = [
      ["8", [128, 192, 64], "pcm", 8],
      ["24", [0, 4194304, -4194304], "pcm", 24],
      ["32", [0, 1073741824, -1073741824], "pcm", 32],
      ["32f", [0, 0.5, -0.5], "float", 32],
      ["64", [0, 0.5, -0.5], "float", 64]
    ]
    for (const [depth, samples, encoding, bits] of cases) {
      const decoded = decodeWav(wav(1, 16000, depth, samples).toBuffer())
      expect(Either.isRight(decoded), `${depth}: ${JSON.stringify(Either.getLeft(decoded))}`).toBe(true)
      const right = Either.getOrThrow(decoded)
      expect([right.encoding, right.bitsPerSample], depth).toEqual([encoding, bits])
      expect(right.samples[0], depth).toBe(0)
      expect(Math.abs(right.samples[1]! - 16384), depth).toBeLessThan(300)
      expect(Math.abs(right.samples[2]! + 16384), depth).toBeLessThan(300)
    }
    for (const [law, encoding] of [["toMuLaw", "mulaw"], ["toALaw", "alaw"]] as const) {
      const file = wav(1, 8000, "16", [0, 16384, -16384])
      file[law]()
      const decoded = Either.getOrThrow(decodeWav(file.toBuffer()))
      expect(decoded.encoding).toBe(encoding)
      expect(Math.abs(decoded.samples[1]! - 16384)).toBeLessThan(600)
    }
  })
  it("refuses what is not a playable WAV, saying why", () => {
    const refusal = (bytes: Uint8Array) => Either.getLeft(decodeWav(bytes)).pipe((o) => (o._tag === "Some" ? o.value : "accepted"))
    expect(refusal(new TextEncoder().encode("phone_number\n"))).toBe("the file is not a WAV file")
    expect(refusal(new Uint8Array([0x49, 0x44, 0x33, 3, 0, 0]))).toBe("the file is not a WAV file (it looks like MP3)")
    expect(refusal(new TextEncoder().encode("OggS...."))).toBe("the file is not a WAV file (it is Ogg)")
    expect(refusal(wav(1, 8000, "16", [1, 2, 3]).toBuffer().slice(0, 30))).toMatch(/^the WAV file cannot be read/)
    expect(refusal(wav(1, 8000, "16", []).toBuffer())).toBe("it holds no audio")
    expect(refusal(wav(3, 8000, "16", [[1], [2], [3]]).toBuffer())).toBe("it has 3 channels; mono or stereo only")
    expect(refusal(wav(1, 2000, "16", [1, 2]).toBuffer())).toBe("its sample rate 2000 Hz is outside 4000 to 192000 Hz")
    const adpcm = wav(1, 8000, "16", new Array(2000).fill(0))
    adpcm.toIMAADPCM()
    expect(refusal(adpcm.toBuffer())).toBe("its samples are IMA ADPCM at 4 bits, which is not supported")
  })
})

describe("toWav", () => {
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

  it.prop("what it writes reads back as the same audio (L16 in either order, G.711)", [
    FastCheck.array(FastCheck.integer({ min: -32768, max: 32767 }), { minLength: 1, maxLength: 400 }),
    FastCheck.constantFrom("l16le" as const, "l16be" as const, "mulaw" as const, "alaw" as const)
  ], ([samples, encoding]) => {
    const format = { encoding, sampleRate: 8000 }
    const data = encodePcm16(encoding, Int16Array.from(samples))
    const read = Either.getOrThrow(decodeWav(toWav(format, data)))
    expect(read.sampleRate).toBe(8000)
    expect([...read.samples]).toEqual([...decodeToPcm16(encoding, data)])
  })
})
