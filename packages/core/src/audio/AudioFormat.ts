/**
 * How audio is encoded, as carriers stream it and speech services take it: G.711 (µ-law, A-law) or
 * 16-bit linear PCM in either byte order, at any rate. A frame carries its format, so nothing assumes
 * a sample rate or an encoding.
 */

/** How audio is encoded: G.711 µ-law or A-law, or 16-bit linear PCM in the given byte order. */
export type AudioEncoding = "mulaw" | "alaw" | "l16le" | "l16be"

export interface AudioFormat {
  readonly encoding: AudioEncoding
  /** Samples per second per channel, e.g. 8000, 16000, 24000. */
  readonly sampleRate: number
}

/** A chunk of audio in a known format. */
export interface AudioFrame {
  readonly format: AudioFormat
  readonly data: Uint8Array
}

/** Bytes per sample of an encoding. */
export const bytesPerSample = (encoding: AudioEncoding): number => encoding === "mulaw" || encoding === "alaw" ? 1 : 2

/** How many milliseconds `byteLength` bytes of this format last. */
export const durationMs = (format: AudioFormat, byteLength: number): number =>
  (byteLength / bytesPerSample(format.encoding) / format.sampleRate) * 1000

/** Bytes in `ms` milliseconds of this format (whole samples, at least one). */
export const frameBytes = (format: AudioFormat, ms: number): number =>
  Math.max(1, Math.round((format.sampleRate * ms) / 1000)) * bytesPerSample(format.encoding)
