/**
 * Pre-recorded audio (`/api/v1/workflow-recordings`, the reference's shapes): signed upload URLs, the
 * records of uploaded WAV files (read and measured; anything else refused with the accepted formats),
 * filters, rename, soft delete, transcription by the server's recognizer, one organization never
 * seeing another's; and agents that play a recording must name one that exists. On SQLite and PostgreSQL.
 */
import { BatchRecordingCreateResponse, BatchRecordingUploadResponse, RecordingList } from "@agentline/api/recordings/Recordings"
import { CallAudioHandler } from "@agentline/core/audio/CallAudio"
import * as LocalTextToSpeech from "@agentline/voice-local/LocalTextToSpeech"
import { defaultPrices, Prices } from "@agentline/voice/session/Costs"
import { AgentLanguageModel, SpeechServiceNames } from "@agentline/voice/session/LanguageModelTools"
import * as ScriptedSpeechToText from "@agentline/voice/testing/ScriptedSpeechToText"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import wavefile from "wavefile"
import { call, dialects, type Reply, seedOrganization, TestApp } from "./Harness.js"
import { createRecording, putBytes, toneWav, upload } from "./RecordingFixtures.js"
import { decode, issuesOf, locsOf } from "./Wire.js"

const transcriptLines = ["Welcome to Acme, how can I help?"]

const voiceServices = Layer.mergeAll(
  ScriptedSpeechToText.layer(() => transcriptLines),
  LocalTextToSpeech.portLayer().pipe(Layer.provide(NodeContext.layer)),
  Layer.succeed(AgentLanguageModel, Option.none()),
  Layer.succeed(SpeechServiceNames, { stt: "scripted", tts: "local" }),
  Layer.succeed(Prices, defaultPrices)
)

const transcribe = (apiKey: string, bytes: Uint8Array, fileName = "clip.wav") =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const form = new FormData()
    form.append("file", new Blob([new Uint8Array(bytes)], { type: "audio/wav" }), fileName)
    form.append("language", "en")
    const response = yield* client.execute(
      HttpClientRequest.post("/api/v1/workflow-recordings/transcribe").pipe(
        HttpClientRequest.setHeader("x-api-key", apiKey),
        HttpClientRequest.bodyFormData(form)
      )
    )
    const text = yield* response.text
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) } as Reply
  }).pipe(Effect.scoped, Effect.orDie)

const agentPlaying = (greetingRecording: string, transitionRecording?: string, greetingType = "audio") => ({
  nodes: [
    {
      id: "start",
      type: "startCall",
      position: { x: 0, y: 0 },
      data: { name: "Start", prompt: "Greet", greeting: "Hello!", greeting_type: greetingType, greeting_recording_id: greetingRecording }
    },
    { id: "end", type: "endCall", position: { x: 0, y: 100 }, data: { name: "End", prompt: "Say goodbye" } }
  ],
  edges: [{
    id: "e1",
    source: "start",
    target: "end",
    data: {
      label: "finish",
      condition: "Done",
      ...(transitionRecording !== undefined ? { transition_speech_type: "audio", transition_speech_recording_id: transitionRecording } : {})
    }
  }]
})

for (const dialect of dialects) {
  layer(TestApp(dialect, { voiceServices }), { timeout: "120 seconds" })(`Workflow recordings [${dialect}]`, (it) => {
    it.effect("upload URLs, PUT, create: each file is read (duration, rate, channels, size in metadata); listed with filters, renamed, deleted", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const mono = toneWav({ sampleRate: 8000, channels: 1, seconds: 1.5 })
        const stereo = toneWav({ sampleRate: 44100, channels: 2, seconds: 0.5 })
        const items = yield* upload(org.apiKey, [{ name: "hello there.wav", bytes: mono }, { name: "bye.wav", bytes: stereo }])
        expect(items.length).toBe(2)
        expect(items[0]!.recording_id).not.toBe(items[1]!.recording_id)
        expect(items[0]!.storage_key).toBe(`${org.admin.organization_id}/recordings/${items[0]!.recording_id}.hello_there.wav`)
        // An upload URL works once.
        expect((yield* putBytes(items[0]!.upload_url, mono)).status).toBe(409)

        const created = yield* call("POST", "/api/v1/workflow-recordings/", {
          apiKey: org.apiKey,
          body: {
            recordings: [
              { recording_id: items[0]!.recording_id, storage_key: items[0]!.storage_key, transcript: "Hello there", tts_provider: "elevenlabs", tts_voice_id: "v1", metadata: { note: "mine", duration: 99 } },
              { recording_id: items[1]!.recording_id, storage_key: items[1]!.storage_key, transcript: "Goodbye", tts_provider: "cartesia" }
            ]
          }
        })
        expect(created.status, JSON.stringify(created.body)).toBe(200)
        const [hello, bye] = created.body.recordings
        expect(hello).toMatchObject({
          recording_id: items[0]!.recording_id,
          workflow_id: null,
          organization_id: org.admin.organization_id,
          tts_provider: "elevenlabs",
          tts_model: null,
          tts_voice_id: "v1",
          transcript: "Hello there",
          storage_key: items[0]!.storage_key,
          storage_backend: "blob_store",
          created_by: org.admin.id,
          is_active: true,
          // What the file says wins over what the client claimed (duration).
          metadata: { note: "mine", format: "wav", encoding: "pcm", sample_rate: 8000, channels: 1, bits_per_sample: 16, duration: 1.5, file_size: mono.length }
        })
        expect(bye.metadata).toMatchObject({ sample_rate: 44100, channels: 2, duration: 0.5, file_size: stereo.length })
        expect(Object.keys(hello).sort()).toEqual([
          "created_at", "created_by", "id", "is_active", "metadata", "organization_id", "recording_id", "storage_backend", "storage_key",
          "transcript", "tts_model", "tts_provider", "tts_voice_id", "workflow_id"
        ])
        // The same upload cannot make a second recording.
        const again = yield* call("POST", "/api/v1/workflow-recordings/", {
          apiKey: org.apiKey,
          body: { recordings: [{ recording_id: items[0]!.recording_id, storage_key: items[0]!.storage_key, transcript: "x" }] }
        })
        expect(again.status).toBe(422)

        const list = (query = "") => Effect.map(call("GET", `/api/v1/workflow-recordings/${query}`, { apiKey: org.apiKey }), (r) => decode(RecordingList, r.body))
        expect((yield* list()).total).toBe(2)
        expect((yield* list("?tts_provider=elevenlabs")).recordings.map((r) => r.id)).toEqual([hello.id])
        expect((yield* list("?tts_voice_id=v1&tts_provider=cartesia")).total).toBe(0)
        expect((yield* list("?tts_model=nope")).total).toBe(0)

        const renamed = yield* call("PATCH", `/api/v1/workflow-recordings/${hello.id}`, {
          apiKey: org.apiKey,
          body: { recording_id: "greeting-main", transcript: "Hello there, friend" }
        })
        expect(renamed.status, JSON.stringify(renamed.body)).toBe(200)
        expect(renamed.body).toMatchObject({ id: hello.id, recording_id: "greeting-main", transcript: "Hello there, friend", tts_provider: "elevenlabs" })
        const clash = yield* call("PATCH", `/api/v1/workflow-recordings/${bye.id}`, { apiKey: org.apiKey, body: { recording_id: "greeting-main" } })
        expect(clash.status).toBe(409)
        const badName = yield* call("PATCH", `/api/v1/workflow-recordings/${bye.id}`, { apiKey: org.apiKey, body: { recording_id: "no spaces!" } })
        expect(badName.status).toBe(422)

        const deleted = yield* call("DELETE", "/api/v1/workflow-recordings/greeting-main", { apiKey: org.apiKey })
        expect(deleted.status).toBe(200)
        expect(deleted.body.success).toBe(true)
        expect((yield* list()).recordings.map((r) => r.id)).toEqual([bye.id])
        expect((yield* call("DELETE", "/api/v1/workflow-recordings/greeting-main", { apiKey: org.apiKey })).status).toBe(404)
        expect((yield* call("PATCH", `/api/v1/workflow-recordings/${hello.id}`, { apiKey: org.apiKey, body: { transcript: "x" } })).status).toBe(404)
        // Its name is free again.
        expect((yield* call("PATCH", `/api/v1/workflow-recordings/${bye.id}`, { apiKey: org.apiKey, body: { recording_id: "greeting-main" } })).status).toBe(200)
      }))

    it.effect("other WAV encodings are read (8-bit, 24-bit, float, µ-law); anything else is a 422 naming each recording and the accepted formats", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const mulaw = new wavefile.WaveFile(toneWav({ sampleRate: 8000, channels: 1, seconds: 0.2 }))
        mulaw.toMuLaw()
        const good = [
          toneWav({ sampleRate: 16000, channels: 1, seconds: 0.25, bitDepth: "8" }),
          toneWav({ sampleRate: 48000, channels: 2, seconds: 0.25, bitDepth: "24" }),
          toneWav({ sampleRate: 22050, channels: 1, seconds: 0.25, bitDepth: "32f" }),
          mulaw.toBuffer()
        ]
        const goodItems = yield* upload(org.apiKey, good.map((bytes, i) => ({ name: `g${i}.wav`, bytes })))
        const ok = yield* call("POST", "/api/v1/workflow-recordings/", {
          apiKey: org.apiKey,
          body: { recordings: goodItems.map((item) => ({ recording_id: item.recording_id, storage_key: item.storage_key, transcript: "t" })) }
        })
        expect(ok.status, JSON.stringify(ok.body)).toBe(200)
        expect(decode(BatchRecordingCreateResponse, ok.body).recordings.map((r) => [r.metadata.encoding, r.metadata.bits_per_sample])).toEqual([["pcm", 8], ["pcm", 24], ["float", 32], ["mulaw", 8]])

        const mp3 = new Uint8Array([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 10, ...new Array(200).fill(0x55)])
        const truncated = toneWav({ sampleRate: 8000, channels: 1, seconds: 0.2 }).slice(0, 30)
        const [mp3Item, truncatedItem, notUploaded] = yield* Effect.gen(function*() {
          const urls = yield* call("POST", "/api/v1/workflow-recordings/upload-url", {
            apiKey: org.apiKey,
            body: { files: [{ filename: "a.mp3", mime_type: "audio/mpeg", file_size: mp3.length }, { filename: "b.wav", file_size: truncated.length }, { filename: "c.wav", file_size: 100 }] }
          })
          expect(urls.status).toBe(200)
          return decode(BatchRecordingUploadResponse, urls.body).items
        })
        expect((yield* putBytes(mp3Item.upload_url, mp3, "audio/mpeg")).status).toBe(200)
        // A WAV upload must say it is audio.
        expect((yield* putBytes(truncatedItem.upload_url, truncated, "text/csv")).status).toBe(400)
        expect((yield* putBytes(truncatedItem.upload_url, truncated, "audio/x-wav")).status).toBe(200)
        const other = yield* seedOrganization()
        const [foreign] = yield* upload(other.apiKey, [{ name: "theirs.wav", bytes: good[0]! }])

        const refused = yield* call("POST", "/api/v1/workflow-recordings/", {
          apiKey: org.apiKey,
          body: {
            recordings: [
              { recording_id: mp3Item.recording_id, storage_key: mp3Item.storage_key, transcript: "t" },
              { recording_id: truncatedItem.recording_id, storage_key: truncatedItem.storage_key, transcript: "t" },
              { recording_id: notUploaded.recording_id, storage_key: notUploaded.storage_key, transcript: "t" },
              { recording_id: foreign!.recording_id, storage_key: foreign!.storage_key, transcript: "t" },
              { recording_id: "someone-else", storage_key: mp3Item.storage_key, transcript: "t" }
            ]
          }
        })
        expect(refused.status).toBe(422)
        expect(locsOf(refused.body)).toEqual([
          "body.recordings.0.storage_key",
          "body.recordings.1.storage_key",
          "body.recordings.2.storage_key",
          "body.recordings.3.storage_key",
          "body.recordings.4.recording_id"
        ])
        expect(refused.body.detail[0].msg).toContain("looks like MP3")
        for (const i of [0, 1]) expect(refused.body.detail[i].msg).toContain("Accepted: WAV files")
        expect(refused.body.detail[2].msg).toContain("nothing was uploaded")
        // Nothing of the batch was created.
        expect((yield* call("GET", "/api/v1/workflow-recordings/", { apiKey: org.apiKey })).body.total).toBe(4)

        const tooBig = yield* call("POST", "/api/v1/workflow-recordings/upload-url", {
          apiKey: org.apiKey,
          body: { files: [{ filename: "big.wav", file_size: 5 * 1024 * 1024 + 1 }, { filename: "x.txt", mime_type: "text/plain", file_size: 10 }] }
        })
        expect(tooBig.status).toBe(422)
        expect(JSON.stringify(tooBig.body)).toContain("at most 5242880 bytes")
        expect(JSON.stringify(tooBig.body)).toContain("mime_type must be an audio type")
        expect((yield* call("POST", "/api/v1/workflow-recordings/upload-url", { apiKey: org.apiKey, body: { files: [] } })).status).toBe(422)
      }))

    it.effect("one organization never sees, changes or uses another's recordings; no credentials, no access", () =>
      Effect.gen(function*() {
        const a = yield* seedOrganization()
        const b = yield* seedOrganization()
        const mine = yield* createRecording(a.apiKey, toneWav({ sampleRate: 8000, channels: 1, seconds: 0.3 }), "A's greeting")
        expect((yield* call("GET", "/api/v1/workflow-recordings/", { apiKey: b.apiKey })).body).toEqual({ recordings: [], total: 0 })
        expect((yield* call("PATCH", `/api/v1/workflow-recordings/${mine.id}`, { apiKey: b.apiKey, body: { transcript: "hijacked" } })).status).toBe(404)
        expect((yield* call("DELETE", `/api/v1/workflow-recordings/${mine.recording_id}`, { apiKey: b.apiKey })).status).toBe(404)
        // B's agent cannot play A's recording.
        const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: b.apiKey,
          body: { name: "B", workflow_definition: agentPlaying(mine.recording_id) }
        })
        expect(agent.status).toBe(422)
        expect((yield* call("GET", "/api/v1/workflow-recordings/", { apiKey: a.apiKey })).body.recordings[0]).toMatchObject({ transcript: "A's greeting", is_active: true })
        // A recording's upload is not a contacts file.
        expect((yield* call("POST", "/api/v1/organizations/telephony-configs", {
          apiKey: a.apiKey,
          body: { name: "sim", config: { provider: "simulator" }, is_default_outbound: true }
        })).status).toBe(200)
        const plainAgent = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: a.apiKey,
          body: { name: "A", workflow_definition: agentPlaying(mine.recording_id) }
        })
        const campaign = yield* call("POST", "/api/v1/campaign/create", {
          apiKey: a.apiKey,
          body: { name: "c", workflow_id: plainAgent.body.id, source_type: "csv", source_id: mine.storage_key }
        })
        expect(campaign.status, JSON.stringify(campaign.body)).toBe(400)
        expect(campaign.body.detail).toContain("is not an uploaded file of this organization")
        expect((yield* call("GET", "/api/v1/workflow-recordings/")).status).toBe(401)
      }))

    it.effect("agents: a definition that plays a recording must name an active one of the organization (422 naming the node or edge field)", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const greeting = yield* createRecording(org.apiKey, toneWav({ sampleRate: 8000, channels: 1, seconds: 0.3 }), "Hi")
        const unknown = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: org.apiKey,
          body: { name: "Unknown", workflow_definition: agentPlaying("nope-1", "nope-2") }
        })
        expect(unknown.status).toBe(422)
        expect(issuesOf(unknown.body).map((i) => [i.kind, i.id, i.field])).toEqual([
          ["node", "start", "greeting_recording_id"],
          ["edge", "e1", "transition_speech_recording_id"]
        ])
        expect(unknown.body.detail[0].msg).toContain("recording 'nope-1' does not exist")
        const ok = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: org.apiKey,
          body: { name: "Known", workflow_definition: agentPlaying(greeting.recording_id, greeting.recording_id) }
        })
        expect(ok.status, JSON.stringify(ok.body)).toBe(200)
        // A stale id with type text plays nothing and is accepted.
        const stale = agentPlaying("gone", undefined, "text")
        expect((yield* call("POST", "/api/v1/workflow/create/definition", { apiKey: org.apiKey, body: { name: "Text", workflow_definition: stale } })).status).toBe(200)
        // After the recording is deleted, saving the agent again names it.
        expect((yield* call("DELETE", `/api/v1/workflow-recordings/${greeting.recording_id}`, { apiKey: org.apiKey })).status).toBe(200)
        const resaved = yield* call("PUT", `/api/v1/workflow/${ok.body.id}`, {
          apiKey: org.apiKey,
          body: { workflow_definition: agentPlaying(greeting.recording_id) }
        })
        expect(resaved.status).toBe(422)
        expect(resaved.body.detail[0]).toMatchObject({ kind: "node", id: "start", field: "greeting_recording_id" })
      }))

    it.effect("workflow_id: a recording made for an agent of the organization is listed under it; another organization's agent is a 422", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const other = yield* seedOrganization()
        const plain = {
          nodes: [
            { id: "start", type: "startCall", position: { x: 0, y: 0 }, data: { name: "Start", prompt: "Greet" } },
            { id: "end", type: "endCall", position: { x: 0, y: 100 }, data: { name: "End", prompt: "Bye" } }
          ],
          edges: [{ id: "e1", source: "start", target: "end", data: { label: "finish", condition: "Done" } }]
        }
        const mine = yield* call("POST", "/api/v1/workflow/create/definition", { apiKey: org.apiKey, body: { name: "Mine", workflow_definition: plain } })
        const theirs = yield* call("POST", "/api/v1/workflow/create/definition", { apiKey: other.apiKey, body: { name: "Theirs", workflow_definition: plain } })
        const bytes = toneWav({ sampleRate: 8000, channels: 1, seconds: 0.2 })
        const made = yield* createRecording(org.apiKey, bytes, "For mine", { workflow_id: mine.body.id })
        expect(made.workflow_id).toBe(mine.body.id)
        yield* createRecording(org.apiKey, bytes, "For none")
        const listed = yield* call("GET", `/api/v1/workflow-recordings/?workflow_id=${mine.body.id}`, { apiKey: org.apiKey })
        expect(decode(RecordingList, listed.body).recordings.map((r) => r.transcript)).toEqual(["For mine"])
        expect((yield* call("GET", "/api/v1/workflow-recordings/?workflow_id=99999999999", { apiKey: org.apiKey })).status).toBe(422)
        const [item] = yield* upload(org.apiKey, [{ name: "x.wav", bytes }])
        const refused = yield* call("POST", "/api/v1/workflow-recordings/", {
          apiKey: org.apiKey,
          body: { recordings: [{ recording_id: item!.recording_id, storage_key: item!.storage_key, transcript: "t", workflow_id: theirs.body.id }] }
        })
        expect(refused.status).toBe(422)
        expect(refused.body.detail[0].loc).toEqual(["body", "recordings", 0, "workflow_id"])
      }))

    it.effect("transcribe: the server's recognizer hears the file's words; a file that is not WAV is a 422", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const clip = toneWav({ sampleRate: 16000, channels: 1, seconds: 1.2, amplitude: 0.5 })
        const heard = yield* transcribe(org.apiKey, clip)
        expect(heard.status, JSON.stringify(heard.body)).toBe(200)
        expect(heard.body).toEqual({ transcript: transcriptLines[0], language: "en", duration: 1.2 })
        const silence = yield* transcribe(org.apiKey, toneWav({ sampleRate: 16000, channels: 1, seconds: 1, amplitude: 0 }))
        expect(silence.body.transcript).toBe("")
        const notWav = yield* transcribe(org.apiKey, new TextEncoder().encode("phone_number\n+14155550100\n"), "x.csv")
        expect(notWav.status).toBe(422)
        expect(notWav.body.detail[0].msg).toContain("not a WAV file")
      }))
  })
}

layer(TestApp("sqlite", { callAudioHandler: CallAudioHandler.silent }), { timeout: "60 seconds" })("Workflow recordings without a voice runtime", (it) => {
  it.effect("transcribe says the server has no speech-to-text service (503)", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      const reply = yield* transcribe(org.apiKey, toneWav({ sampleRate: 8000, channels: 1, seconds: 0.5 }))
      expect(reply.status).toBe(503)
      expect(reply.body.detail).toContain("no speech-to-text service")
    }))
})
