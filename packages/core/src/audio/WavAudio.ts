/**
 * WAV files. Reading an uploaded recording: a WAV file (RIFF, RIFX or RF64, parsed by `wavefile`) with
 * samples the voice runtime can play: linear PCM of 8, 16, 24 or 32 bits, 32- or 64-bit float, or
 * G.711 µ-law / A-law, mono or stereo, at any sample rate. Decoded to mono 16-bit PCM at the file's own
 * rate (the call resamples it to its line). Writing a call's audio as it was streamed (`toWav`). Pure.
 */
import { Either } from "effect"
import wavefile from "wavefile"
import { type AudioFormat, bytesPerSample } from "./AudioFormat.js"
import { decodeToPcm16, encodePcm16 } from "./Pcm.js"

/** What the 422 of an unplayable file tells the client to send instead. */
export const ACCEPTED_FORMATS =
  "WAV files (RIFF/RIFX/RF64) with linear PCM 8/16/24/32-bit, 32/64-bit float, G.711 µ-law or A-law samples, mono or stereo, at any sample rate"

export type WavEncoding = "pcm" | "float" | "mulaw" | "alaw"

export interface WavInfo {
  readonly encoding: WavEncoding
  readonly sampleRate: number
  readonly channels: number
  readonly bitsPerSample: number
  /** Seconds of audio. */
  readonly durationSeconds: number
}

export interface DecodedWav extends WavInfo {
  /** Mono 16-bit samples at `sampleRate` (stereo is averaged). */
  readonly samples: Int16Array
}

interface Fmt {
  readonly audioFormat: number
  readonly numChannels: number
  readonly sampleRate: number
  readonly bitsPerSample: number
  readonly subformat?: ReadonlyArray<number>
}

/** WAVE_FORMAT_EXTENSIBLE names the real format in the first field of its sub-format GUID. */
const EXTENSIBLE = 0xfffe

const encodingOf = (fmt: Fmt): WavEncoding | undefined => {
  const code = fmt.audioFormat === EXTENSIBLE ? fmt.subformat?.[0] : fmt.audioFormat
  switch (code) {
    case 1:
      return [8, 16, 24, 32].includes(fmt.bitsPerSample) ? "pcm" : undefined
    case 3:
      return [32, 64].includes(fmt.bitsPerSample) ? "float" : undefined
    case 6:
      return fmt.bitsPerSample === 8 ? "alaw" : undefined
    case 7:
      return fmt.bitsPerSample === 8 ? "mulaw" : undefined
    default:
      return undefined
  }
}

const FORMAT_NAMES: Record<number, string> = { 2: "MS ADPCM", 17: "IMA ADPCM", 85: "MP3", 0x50: "MPEG", 0x161: "WMA" }


/** A channel's samples as wavefile gives them: a typed array, or plain numbers in some of its builds. */
const isSamples = (value: unknown): value is ArrayLike<number> =>
  value instanceof Float64Array || value instanceof Float32Array || value instanceof Int16Array || value instanceof Int32Array ||
  (Array.isArray(value) && value.every((v) => typeof v === "number"))
/** The file's audio, or why it cannot be played (in words, for the client). */
export const decodeWav = (bytes: Uint8Array): Either.Either<DecodedWav, string> => {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 4))
  if (!["RIFF", "RIFX", "RF64"].includes(head)) {
    const guess = head === "OggS" ? " (it is Ogg)" : head.startsWith("ID3") || (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0)
      ? " (it looks like MP3)"
      : head === "fLaC"
      ? " (it is FLAC)"
      : ""
    return Either.left(`the file is not a WAV file${guess}`)
  }
  const wav = new wavefile.WaveFile()
  try {
    wav.fromBuffer(bytes)
  } catch (e) {
    return Either.left(`the WAV file cannot be read (${(e as Error).message})`)
  }
  // A copy: wavefile's conversions reset the header object in place.
  const fmt: Fmt = { ...(wav.fmt as Fmt) }
  const encoding = encodingOf(fmt)
  if (encoding === undefined) {
    const code = fmt.audioFormat === EXTENSIBLE ? fmt.subformat?.[0] ?? 0 : fmt.audioFormat
    return Either.left(`its samples are ${FORMAT_NAMES[code] ?? `format ${code}`} at ${fmt.bitsPerSample} bits, which is not supported`)
  }
  if (fmt.numChannels !== 1 && fmt.numChannels !== 2) return Either.left(`it has ${fmt.numChannels} channels; mono or stereo only`)
  if (!(fmt.sampleRate >= 4000 && fmt.sampleRate <= 192000)) return Either.left(`its sample rate ${fmt.sampleRate} Hz is outside 4000 to 192000 Hz`)
  try {
    if (encoding === "mulaw") wav.fromMuLaw()
    else if (encoding === "alaw") wav.fromALaw()
    if (wav.bitDepth !== "16") wav.toBitDepth("16")
  } catch (e) {
    return Either.left(`its samples cannot be converted (${(e as Error).message})`)
  }
  // Values at 16-bit scale; read as plain numbers (the typed-array output option differs between wavefile's builds).
  // wavefile types it as one Float64Array; a stereo file gives one array per channel.
  const raw: unknown = wav.getSamples(false)
  const planes: ReadonlyArray<unknown> = fmt.numChannels === 1 ? [raw] : Array.isArray(raw) ? raw : []
  if (planes.length !== fmt.numChannels || !planes.every(isSamples)) return Either.left("its samples cannot be read")
  const channels: ReadonlyArray<Int16Array> = planes
    .map((channel) => Int16Array.from(channel, (v) => Math.max(-32768, Math.min(32767, Math.round(v)))))
  const length = channels[0]?.length ?? 0
  if (length === 0) return Either.left("it holds no audio")
  let samples = channels[0]!
  if (channels.length === 2) {
    const left = channels[0]!
    const right = channels[1]!
    samples = new Int16Array(length)
    for (let i = 0; i < length; i++) samples[i] = Math.round((left[i]! + (right[i] ?? 0)) / 2)
  }
  return Either.right({
    encoding,
    sampleRate: fmt.sampleRate,
    channels: fmt.numChannels,
    bitsPerSample: fmt.bitsPerSample,
    durationSeconds: Math.round((length / fmt.sampleRate) * 1000) / 1000,
    samples
  })
}

/** A 44-byte RIFF/WAVE header for 16-bit PCM mono (format 1) or G.711 (µ-law 7, A-law 6). */
const wavHeader = (format: AudioFormat, dataLength: number): Uint8Array => {
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
