/** Recording files and uploads for tests: WAV tones made with wavefile, uploaded through the API. */
import { expect } from "@effect/vitest"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect } from "effect"
import wavefile from "wavefile"
import { call, type Reply } from "./Harness.js"

/** A WAV file of a tone (440 Hz unless `frequency`): `channels` × `seconds` at `sampleRate`, samples of `bitDepth` (wavefile's codes). */
export const toneWav = (options: { sampleRate: number; channels: 1 | 2; seconds: number; bitDepth?: string; amplitude?: number; frequency?: number }) => {
  const length = Math.round(options.sampleRate * options.seconds)
  const bitDepth = options.bitDepth ?? "16"
  const float = bitDepth.startsWith("32f") || bitDepth === "64"
  const scale = float ? 1 : bitDepth === "8" ? 127 : 2 ** (Number(bitDepth) - 1) - 1
  const amplitude = options.amplitude ?? 0.3
  const channel = Array.from({ length }, (_, i) => {
    const v = amplitude * Math.sin((2 * Math.PI * (options.frequency ?? 440) * i) / options.sampleRate)
    return bitDepth === "8" ? Math.round(128 + v * scale) : float ? v : Math.round(v * scale)
  })
  const wav = new wavefile.WaveFile()
  wav.fromScratch(options.channels, options.sampleRate, bitDepth, options.channels === 1 ? channel : [channel, channel])
  return wav.toBuffer()
}

/** PUTs bytes to an upload URL (its path and query: the test server listens elsewhere). */
export const putBytes = (uploadUrl: string, bytes: Uint8Array, contentType = "audio/wav") =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const url = new URL(uploadUrl)
    const response = yield* client.execute(HttpClientRequest.put(url.pathname + url.search).pipe(HttpClientRequest.bodyUint8Array(bytes, contentType)))
    const text = yield* response.text
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) } as Reply
  }).pipe(Effect.scoped, Effect.orDie)

/** Uploads the files (upload URLs, PUTs) and returns what the upload step gave for each. */
export const upload = (apiKey: string, files: ReadonlyArray<{ name: string; bytes: Uint8Array; mime?: string }>) =>
  Effect.gen(function*() {
    const urls = yield* call("POST", "/api/v1/workflow-recordings/upload-url", {
      apiKey,
      body: { files: files.map((f) => ({ filename: f.name, file_size: f.bytes.length, ...(f.mime ? { mime_type: f.mime } : {}) })) }
    })
    expect(urls.status, JSON.stringify(urls.body)).toBe(200)
    const items = urls.body.items as ReadonlyArray<{ upload_url: string; recording_id: string; storage_key: string }>
    for (const [i, item] of items.entries()) {
      const put = yield* putBytes(item.upload_url, files[i]!.bytes, files[i]!.mime ?? "audio/wav")
      expect(put.status, JSON.stringify(put.body)).toBe(200)
    }
    return items
  })

/** Uploads one WAV file and creates its recording; returns the created record. */
export const createRecording = (apiKey: string, bytes: Uint8Array, transcript: string, extra: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const [item] = yield* upload(apiKey, [{ name: "greeting.wav", bytes }])
    const created = yield* call("POST", "/api/v1/workflow-recordings/", {
      apiKey,
      body: { recordings: [{ recording_id: item!.recording_id, storage_key: item!.storage_key, transcript, ...extra }] }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    return created.body.recordings[0]
  })


/**
 * How much of `samples` is a sine of `frequency`: its amplitude at that frequency over the amplitude a
 * pure tone of the same power would have (≈1 for the tone, near 0 for speech or silence).
 */
export const toneShare = (samples: Int16Array, sampleRate: number, frequency: number): number => {
  let c = 0
  let s = 0
  let power = 0
  for (let i = 0; i < samples.length; i++) {
    const x = samples[i]!
    c += x * Math.cos((2 * Math.PI * frequency * i) / sampleRate)
    s += x * Math.sin((2 * Math.PI * frequency * i) / sampleRate)
    power += x * x
  }
  if (power === 0) return 0
  const amplitude = (2 / samples.length) * Math.sqrt(c * c + s * s)
  return amplitude / Math.sqrt((2 * power) / samples.length)
}

/** Seconds of `samples` (in 100 ms windows) that are the tone of `frequency`. */
export const toneSeconds = (samples: Int16Array, sampleRate: number, frequency: number): number => {
  const window = sampleRate / 10
  let windows = 0
  for (let i = 0; i + window <= samples.length; i += window) {
    if (toneShare(samples.subarray(i, i + window), sampleRate, frequency) > 0.8) windows++
  }
  return windows / 10
}
