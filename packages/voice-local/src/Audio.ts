/**
 * Audio format conversion for the voice runtime: providers stream G.711 (µ-law, A-law) or 16-bit
 * linear PCM at 8, 16 or 24 kHz, speech engines want their own rate (pocketsphinx 16 kHz, OpenAI's
 * `pcm` 24 kHz). Everything here is pure; the resampler keeps the state a stream needs so 20 ms
 * frames join without clicks at their edges.
 */
import type { AudioEncoding, AudioFormat } from "@agentline/core/telephony/Media"
import alawmulaw from "alawmulaw"

/** 16-bit signed samples, native order, one channel. */
export type Pcm16 = Int16Array

/** Bytes per sample of an encoding. */
export const bytesPerSample = (encoding: AudioEncoding): number =>
  encoding === "mulaw" || encoding === "alaw" ? 1 : 2

/** How many milliseconds `byteLength` bytes of this format last. */
export const durationMs = (format: AudioFormat, byteLength: number): number =>
  (byteLength / bytesPerSample(format.encoding) / format.sampleRate) * 1000

/** Encoded bytes as 16-bit samples (an odd trailing byte of L16 is dropped: callers frame whole samples). */
export const decodeToPcm16 = (encoding: AudioEncoding, data: Uint8Array): Pcm16 => {
  switch (encoding) {
    case "mulaw":
      return alawmulaw.mulaw.decode(data)
    case "alaw":
      return alawmulaw.alaw.decode(data)
    case "l16le":
    case "l16be": {
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
      const samples = new Int16Array(Math.floor(data.byteLength / 2))
      const littleEndian = encoding === "l16le"
      for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, littleEndian)
      return samples
    }
  }
}

/** 16-bit samples as bytes of the encoding. */
export const encodePcm16 = (encoding: AudioEncoding, samples: Pcm16): Uint8Array => {
  switch (encoding) {
    case "mulaw":
      return alawmulaw.mulaw.encode(samples)
    case "alaw":
      return alawmulaw.alaw.encode(samples)
    case "l16le":
    case "l16be": {
      const out = new Uint8Array(samples.length * 2)
      const view = new DataView(out.buffer)
      const littleEndian = encoding === "l16le"
      for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i]!, littleEndian)
      return out
    }
  }
}

/**
 * A streaming resampler from one rate to another. Linear interpolation between neighbouring input
 * samples; when lowering the rate the input first goes through a moving average as long as the
 * ratio, a crude low-pass that keeps speech intelligible (telephone audio tops out at 3.4 kHz) and
 * stops the worst aliasing. State between calls: the last input sample and the output count (exact
 * integer positions),
 * so feeding frames one by one gives the same samples as feeding them joined.
 */
export interface Resampler {
  readonly push: (input: Pcm16) => Pcm16
}

export const makeResampler = (fromRate: number, toRate: number): Resampler => {
  if (!(fromRate > 0 && toRate > 0)) throw new RangeError(`invalid sample rates ${fromRate} → ${toRate}`)
  if (fromRate === toRate) return { push: (input) => input }
  const window = fromRate > toRate ? Math.ceil(fromRate / toRate) : 1
  const history: Array<number> = [] // the last `window` raw samples, for the moving average
  // Output sample n lies at input position n·from/to; integer arithmetic keeps it exact, so chunking
  // never changes a sample.
  let outputIndex = 0
  let received = 0 // filtered input samples so far
  let last = 0 // the filtered input sample at index received - 1
  return {
    push: (input) => {
      const filtered: Array<number> = []
      for (const sample of input) {
        history.push(sample)
        if (history.length > window) history.shift()
        let sum = 0
        for (const value of history) sum += value
        filtered.push(sum / history.length)
      }
      const base = received
      const previous = last
      const at = (k: number): number => (k === base - 1 ? previous : filtered[k - base]!)
      received += filtered.length
      const out: Array<number> = []
      for (;;) {
        const numerator = outputIndex * fromRate
        const remainder = numerator % toRate
        const whole = (numerator - remainder) / toRate
        if (whole > received - 1 || (remainder > 0 && whole + 1 > received - 1)) break
        const left = at(whole)
        out.push(remainder === 0 ? left : left + ((at(whole + 1) - left) * remainder) / toRate)
        outputIndex++
      }
      if (filtered.length > 0) last = filtered[filtered.length - 1]!
      return Int16Array.from(out, (value) => Math.max(-32768, Math.min(32767, Math.round(value))))
    }
  }
}

/**
 * A streaming converter between two formats: decode, resample, encode. Keeps a trailing odd byte of
 * L16 input for the next chunk, since stream chunks need not end on a sample.
 */
export interface FormatConverter {
  readonly push: (data: Uint8Array) => Uint8Array
}

export const makeConverter = (from: AudioFormat, to: AudioFormat): FormatConverter => {
  const resampler = makeResampler(from.sampleRate, to.sampleRate)
  const width = bytesPerSample(from.encoding)
  let carry = new Uint8Array(0)
  return {
    push: (data) => {
      let bytes = data
      if (carry.length > 0) {
        bytes = new Uint8Array(carry.length + data.length)
        bytes.set(carry)
        bytes.set(data, carry.length)
      }
      const whole = bytes.length - (bytes.length % width)
      carry = bytes.slice(whole)
      const samples = decodeToPcm16(from.encoding, bytes.subarray(0, whole))
      return encodePcm16(to.encoding, resampler.push(samples))
    }
  }
}

/** A 44-byte RIFF/WAVE header for 16-bit PCM mono (format 1) or G.711 (µ-law 7, A-law 6). */
export const wavHeader = (format: AudioFormat, dataLength: number): Uint8Array => {
  const width = bytesPerSample(format.encoding)
  const formatCode = format.encoding === "mulaw" ? 7 : format.encoding === "alaw" ? 6 : 1
  const header = new Uint8Array(44)
  const view = new DataView(header.buffer)
  const ascii = (offset: number, text: string) => {
    for (let i = 0; i < text.length; i++) header[offset + i] = text.charCodeAt(i)
  }
  ascii(0, "RIFF")
  view.setUint32(4, 36 + dataLength, true)
  ascii(8, "WAVE")
  ascii(12, "fmt ")
  view.setUint32(16, 16, true)
  view.setUint16(20, formatCode, true)
  view.setUint16(22, 1, true)
  view.setUint32(24, format.sampleRate, true)
  view.setUint32(28, format.sampleRate * width, true)
  view.setUint16(32, width, true)
  view.setUint16(34, width * 8, true)
  ascii(36, "data")
  view.setUint32(40, dataLength, true)
  return header
}

/** A whole WAV file of this audio (L16 big-endian is stored little-endian, as WAV requires). */
export const toWav = (format: AudioFormat, data: Uint8Array): Uint8Array => {
  const body = format.encoding === "l16be" ? encodePcm16("l16le", decodeToPcm16("l16be", data)) : data
  const stored: AudioFormat = format.encoding === "l16be" ? { ...format, encoding: "l16le" } : format
  const out = new Uint8Array(44 + body.length)
  out.set(wavHeader(stored, body.length))
  out.set(body, 44)
  return out
}
