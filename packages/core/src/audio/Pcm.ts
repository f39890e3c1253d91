/**
 * Audio as the voice runtime sees it: 16-bit linear PCM samples with their sample rate, whatever the
 * provider streams (G.711 µ-law or A-law, little- or big-endian L16, 8 to 48 kHz) or a speech service
 * wants (pocketsphinx 16 kHz, OpenAI's `pcm` 24 kHz). The one set of conversions of the system, all
 * pure: G.711 through `alawmulaw`; resampling by linear interpolation, after a moving average as long
 * as the ratio when lowering the rate (a crude low-pass that keeps telephone speech, which tops out at
 * 3.4 kHz, intelligible and stops the worst aliasing).
 */
import alawmulaw from "alawmulaw"
import { type AudioEncoding, type AudioFormat, type AudioFrame, bytesPerSample } from "./AudioFormat.js"

/** Mono 16-bit PCM at `sampleRate`. */
export interface PcmFrame {
  readonly sampleRate: number
  readonly samples: Int16Array
}

/** Encoded bytes as 16-bit samples (an odd trailing byte of L16 is dropped: callers frame whole samples). */
export const decodeToPcm16 = (encoding: AudioEncoding, data: Uint8Array): Int16Array => {
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
export const encodePcm16 = (encoding: AudioEncoding, samples: Int16Array): Uint8Array => {
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
 * A streaming resampler from one rate to another. State between calls: the moving average's window,
 * the last filtered sample and the output count (exact integer positions), so feeding frames one by
 * one gives the same samples as feeding them joined.
 */
export interface Resampler {
  readonly push: (input: Int16Array) => Int16Array
}

export const makeResampler = (fromRate: number, toRate: number): Resampler => {
  if (!(fromRate > 0 && toRate > 0)) throw new RangeError(`invalid sample rates ${fromRate} → ${toRate}`)
  if (fromRate === toRate) return { push: (input) => input }
  const window = fromRate > toRate ? Math.ceil(fromRate / toRate) : 1
  // The last `window` raw samples (a ring) and their sum, for the moving average.
  const history = new Float64Array(window)
  let filled = 0
  let head = 0
  let sum = 0
  // Output sample n lies at input position n·from/to; integer arithmetic keeps it exact, so chunking
  // never changes a sample.
  let outputIndex = 0
  let received = 0 // filtered input samples so far
  let last = 0 // the filtered input sample at index received - 1
  return {
    push: (input) => {
      const filtered = new Float64Array(input.length)
      for (let i = 0; i < input.length; i++) {
        if (filled === window) sum -= history[head]!
        else filled++
        history[head] = input[i]!
        sum += input[i]!
        head = (head + 1) % window
        filtered[i] = sum / filled
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
 * `samples` from `from` Hz to `to` Hz in one piece (a recording, one frame on its own): the streaming
 * resampler's samples, as many as the duration asks (the last repeated where the interpolation stops
 * short of the end).
 */
export const resample = (samples: Int16Array, from: number, to: number): Int16Array => {
  if (from === to || samples.length === 0) return samples
  const length = Math.max(1, Math.round((samples.length * to) / from))
  const out = makeResampler(from, to).push(samples)
  if (out.length === length) return out
  const fitted = new Int16Array(length)
  fitted.set(out.subarray(0, length))
  if (out.length < length) fitted.fill(out[out.length - 1]!, out.length)
  return fitted
}

/** A provider's audio frame as PCM at its own rate. */
export const decode = (frame: AudioFrame): PcmFrame => ({
  sampleRate: frame.format.sampleRate,
  samples: decodeToPcm16(frame.format.encoding, frame.data)
})

/** PCM at any rate as a frame of the provider's `format` (resampled, then encoded). */
export const encode = (frame: PcmFrame, format: AudioFormat): AudioFrame => ({
  format,
  data: encodePcm16(format.encoding, resample(frame.samples, frame.sampleRate, format.sampleRate))
})

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
