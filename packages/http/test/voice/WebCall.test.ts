/**
 * Web calls end to end, on SQLite and PostgreSQL: `POST /workflow/{id}/web-call` and the call's
 * WebSocket, with the voice runtime the phone calls use (the scripted recognizer fake, the fake
 * OpenAI-compatible model playing the demo's two-node agent, espeak-ng both ways). A browser is played
 * by a `ws` client sending 16 kHz PCM in real time; the run gets the transcript, recordings and usage.
 */
import { definition } from "./ConversationScript.js"
import { defaultPrices } from "@agentline/voice/session/Costs"
import { expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import WebSocket from "ws"
import { download, silence, speech, voiceLayer } from "./PhoneCallHarness.js"
import { eventually, handshake } from "../contract/ContractMedia.js"
import { call, dialects, seedOrganization } from "../Harness.js"

/** What the caller of the next call says, in order (the scripted recognizer's lines). */
let callerLines: ReadonlyArray<string> = []

const sleep = (millis: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, millis)))

/** A control message of the server's (docs/web-calls.md). */
interface WireMessage {
  readonly type: string
  readonly role?: string
  readonly text?: string
  readonly ms?: number
}

/** The browser's side of a web call: what it got (JSON messages, the agent's audio) and its microphone. */
const connect = (url: string) =>
  Effect.acquireRelease(
    Effect.async<{ socket: WebSocket; messages: Array<WireMessage>; audio: Array<Int16Array>; closed: () => boolean }>((resume) => {
      const socket = new WebSocket(url)
      const messages: Array<WireMessage> = []
      const audio: Array<Int16Array> = []
      let closed = false
      socket.on("message", (data, isBinary) => {
        const bytes = data as Buffer
        if (isBinary) audio.push(new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)))
        else messages.push(JSON.parse(bytes.toString()))
      })
      socket.on("close", () => void (closed = true))
      socket.on("open", () => resume(Effect.succeed({ socket, messages, audio, closed: () => closed })))
      socket.on("unexpected-response", (_request, response) => resume(Effect.dieMessage(`handshake refused: ${response.statusCode}`)))
    }),
    ({ socket }) => Effect.sync(() => socket.terminate())
  )

/** The microphone: `samples` (16 kHz) sent in 20 ms messages, in real time (five at a time). */
const speak = (socket: WebSocket, samples: Int16Array) =>
  Effect.gen(function*() {
    for (let offset = 0; offset < samples.length; offset += 1600) {
      const chunk = samples.slice(offset, offset + 1600)
      for (let i = 0; i < chunk.length; i += 320) socket.send(Buffer.from(chunk.slice(i, i + 320).buffer))
      yield* sleep(100)
    }
  })

const say = (socket: WebSocket, text: string) =>
  Effect.gen(function*() {
    yield* speak(socket, yield* speech(text, 16_000))
    yield* speak(socket, silence(1.2, 16_000))
  })

const setup = Effect.gen(function*() {
  const org = yield* seedOrganization()
  const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
    apiKey: org.apiKey,
    body: {
      name: "Web agent",
      workflow_definition: definition,
      template_context_variables: { first_name: "Ada", product: "solar panels" },
      workflow_configurations: { smart_turn_stop_secs: 0.5 }
    }
  })
  expect(agent.status).toBe(200)
  return { apiKey: org.apiKey, agentId: agent.body.id as number }
})

const startWebCall = (apiKey: string, agentId: number) =>
  Effect.gen(function*() {
    const created = yield* call("POST", `/api/v1/workflow/${agentId}/web-call`, { apiKey, body: {} })
    expect(created.status).toBe(200)
    return created.body as { workflow_run_id: number; token: string; websocket_url: string; websocket_path: string; expires_at: string; sample_rate: number }
  })

const runOf = (apiKey: string, agentId: number, runId: number) =>
  Effect.map(call("GET", `/api/v1/workflow/${agentId}/runs/${runId}`, { apiKey }), (r) => r.body)

const transcriptOf = (messages: ReadonlyArray<WireMessage>) => messages.filter((m) => m.type === "transcript").map((m) => [m.role, m.text])

for (const dialect of dialects) {
  layer(voiceLayer(dialect, () => callerLines, defaultPrices), { timeout: "120 seconds", excludeTestServices: true })(`web calls [${dialect}]`, (it) => {
    it.effect("a whole conversation through the socket: live transcript, latencies and the agent's audio; the run is saved with transcript, recordings and usage", () =>
      Effect.scoped(Effect.gen(function*() {
        const s = yield* setup
        callerLines = ["Yes, I am interested.", "I live in Paris."]
        const created = yield* startWebCall(s.apiKey, s.agentId)
        expect(created.sample_rate).toBe(16_000)
        expect(created.websocket_path).toBe(`/api/v1/web-calls/${created.token}`)
        expect(created.websocket_url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/api\/v1\/web-calls\//)
        expect(Date.parse(created.expires_at) - Date.now()).toBeLessThanOrEqual(60_000)

        const browser = yield* connect(created.websocket_url)
        yield* eventually(() => browser.messages.some((m) => m.type === "ready"), "ready")
        expect(browser.messages[0]).toEqual({ type: "ready", run_id: created.workflow_run_id, sample_rate: 16_000 })
        yield* eventually(() => transcriptOf(browser.messages).length === 1, "the greeting's line", 30_000)
        expect(transcriptOf(browser.messages)).toEqual([["assistant", "Hello Ada, this is Acme."]])
        // The greeting was heard as audio (espeak-ng at 16 kHz): well over a second of it, not silence.
        const greeting = browser.audio.reduce((n, a) => n + a.length, 0)
        expect(greeting).toBeGreaterThan(16_000)
        expect(browser.audio.some((a) => a.some((sample) => Math.abs(sample) > 1000))).toBe(true)

        yield* say(browser.socket, "Yes, I am interested.")
        yield* eventually(() => transcriptOf(browser.messages).length >= 3, "the answer at the second node", 30_000)
        yield* say(browser.socket, "I live in Paris.")
        // The agent extracts the city, says goodbye and ends the call: the socket says so and closes.
        yield* eventually(() => browser.messages.some((m) => m.type === "end"), "the end", 30_000)
        yield* eventually(browser.closed, "the socket's close")
        expect(browser.messages.at(-1)).toEqual({ type: "end", run_id: created.workflow_run_id, reason: "agent_hangup" })
        expect(transcriptOf(browser.messages)).toEqual([
          ["assistant", "Hello Ada, this is Acme."],
          ["user", "Yes, I am interested."],
          ["assistant", "Which city do you live in?"],
          ["user", "I live in Paris."],
          ["assistant", "Thank you, goodbye."]
        ])
        const latencies = browser.messages.filter((m) => m.type === "latency").map((m) => m.ms)
        expect(latencies.length).toBe(2)
        for (const ms of latencies) expect(ms).toBeGreaterThan(0)

        const run = yield* runOf(s.apiKey, s.agentId, created.workflow_run_id)
        expect(run).toMatchObject({ mode: "webcall", is_completed: true, annotations: { web_call: { source: "api" } } })
        expect(run.gathered_context).toMatchObject({ city: "Paris", call_disposition: "interested", end_reason: "end_call_tool", outcome: "completed" })
        expect(run.logs.transcript.map((t: { role: string; text: string }) => [t.role, t.text])).toEqual(transcriptOf(browser.messages))
        expect(run.logs.turn_latency_ms).toEqual(latencies)
        expect(run.usage_info.llm["openai:fake-model"].prompt_tokens).toBeGreaterThan(0)
        expect(run.usage_info.stt.scripted).toBeGreaterThan(2)
        expect(run.usage_info.call_duration_seconds).toBeGreaterThan(2)
        expect(run.cost_info).toMatchObject({ total_cost_usd: expect.any(Number) })
        // The recordings: 16-bit PCM at the wire's rate, with the caller's words in the caller's track.
        expect(run.recording_url).not.toBeNull()
        const recording = yield* download(run.recording_url)
        expect(recording.status).toBe(200)
        const view = new DataView(recording.body.buffer, recording.body.byteOffset, recording.body.byteLength)
        expect(view.getUint32(24, true)).toBe(16_000)
        expect(view.getUint32(40, true) / 2 / 16_000).toBeGreaterThan(4)
        expect((yield* download(run.transcript_url)).status).toBe(200)

        // The token opened its socket once: presenting it again is refused before the upgrade.
        expect(yield* handshake(created.websocket_url)).toBe(403)
      })))

    it.effect("the caller hangs up: the run ends user_hangup and is completed", () =>
      Effect.scoped(Effect.gen(function*() {
        const s = yield* setup
        callerLines = []
        const created = yield* startWebCall(s.apiKey, s.agentId)
        const browser = yield* connect(created.websocket_url)
        yield* eventually(() => transcriptOf(browser.messages).length === 1, "the greeting's line", 30_000)
        browser.socket.send(JSON.stringify({ type: "hangup" }))
        yield* eventually(() => browser.messages.some((m) => m.type === "end"), "the end", 30_000)
        expect(browser.messages.at(-1)).toEqual({ type: "end", run_id: created.workflow_run_id, reason: "user_hangup" })
        const run = yield* runOf(s.apiKey, s.agentId, created.workflow_run_id)
        expect(run.is_completed).toBe(true)
        expect(run.gathered_context.end_reason).toBe("user_hangup")
        expect(run.logs.transcript.map((t: { text: string }) => t.text)).toEqual(["Hello Ada, this is Acme."])
      })))

    it.effect("tokens: a wrong one and an expired one are refused before the upgrade; the endpoint needs credentials and the organization's agent", () =>
      Effect.gen(function*() {
        const s = yield* setup
        const created = yield* startWebCall(s.apiKey, s.agentId)
        const base = created.websocket_url.slice(0, created.websocket_url.lastIndexOf("/") + 1)
        expect(yield* handshake(`${base}${"A".repeat(43)}`)).toBe(403)
        expect(yield* handshake(`${base}not-a-token`)).toBe(403)
        // A minute later the token opens nothing.
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE web_call_tokens SET expires_at = ${new Date(Date.now() - 1000).toISOString()}`
        expect(yield* handshake(created.websocket_url)).toBe(403)
        // The run of a call that never connected stays open (nothing talked in it).
        expect((yield* runOf(s.apiKey, s.agentId, created.workflow_run_id)).is_completed).toBe(false)

        expect((yield* call("POST", `/api/v1/workflow/${s.agentId}/web-call`, { body: {} })).status).toBe(401)
        const other = yield* seedOrganization()
        expect((yield* call("POST", `/api/v1/workflow/${s.agentId}/web-call`, { apiKey: other.apiKey, body: {} })).status).toBe(404)
        expect((yield* call("POST", `/api/v1/workflow/${s.agentId}/web-call`, { apiKey: s.apiKey, body: { name: 5 } })).status).toBe(422)
      }))
  })
}
