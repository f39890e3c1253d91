/**
 * Audio as the voice runtime sees it: 16-bit linear PCM samples with their sample rate, whatever the
 * provider streams (G.711 µ-law or A-law, little- or big-endian L16, 8 to 48 kHz). Pure conversions:
 * G.711 through `alawmulaw`; resampling is linear interpolation, enough for telephone speech.
 */
import alawmulaw from "alawmulaw"
import type { AudioFormat, AudioFrame } from "../telephony/Media.js"

/** Mono 16-bit PCM at `sampleRate`. */
export interface PcmFrame {
  readonly sampleRate: number
  readonly samples: Int16Array
}

/** A provider's audio frame as PCM at its own rate. */
export const decode = (frame: AudioFrame): PcmFrame => {
  const { data, format } = frame
  switch (format.encoding) {
    case "mulaw":
      return { sampleRate: format.sampleRate, samples: alawmulaw.mulaw.decode(data) }
    case "alaw":
      return { sampleRate: format.sampleRate, samples: alawmulaw.alaw.decode(data) }
    case "l16le":
    case "l16be": {
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
      const samples = new Int16Array(Math.floor(data.byteLength / 2))
      for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, format.encoding === "l16le")
      return { sampleRate: format.sampleRate, samples }
    }
  }
}

/** `samples` from `from` Hz to `to` Hz. */
export const resample = (samples: Int16Array, from: number, to: number): Int16Array => {
  if (from === to || samples.length === 0) return samples
  const length = Math.max(1, Math.round((samples.length * to) / from))
  const out = new Int16Array(length)
  const step = from / to
  for (let i = 0; i < length; i++) {
    const position = i * step
    const left = Math.min(Math.floor(position), samples.length - 1)
    const right = Math.min(left + 1, samples.length - 1)
    const fraction = position - left
    out[i] = Math.round(samples[left]! * (1 - fraction) + samples[right]! * fraction)
  }
  return out
}

/** PCM at any rate as a frame of the provider's `format` (resampled, then encoded). */
export const encode = (frame: PcmFrame, format: AudioFormat): AudioFrame => {
  const samples = resample(frame.samples, frame.sampleRate, format.sampleRate)
  switch (format.encoding) {
    case "mulaw":
      return { format, data: alawmulaw.mulaw.encode(samples) }
    case "alaw":
      return { format, data: alawmulaw.alaw.encode(samples) }
    case "l16le":
    case "l16be": {
      const data = new Uint8Array(samples.length * 2)
      const view = new DataView(data.buffer)
      for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i]!, format.encoding === "l16le")
      return { format, data }
    }
  }
}
