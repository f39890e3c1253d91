/**
 * Talking to an agent by voice in a browser (browser tests on the real server; SQLite, and PostgreSQL too
 * with AGENTLINE_BROWSER_PG=1):
 * the agent page's "Talk" button opens a web call in Debian's Chromium, whose microphone is a FAKE
 * device playing a WAV made here with espeak-ng (`--use-file-for-fake-audio-capture`, looped).
 *
 * The server's voice runtime is its own (Silero VAD, espeak-ng speaking the agent); the model and the
 * recognizer are the FAKE OpenAI-compatible server: chat completions answer by script, and each
 * utterance the server sends for transcription (`AGENTLINE_STT=openai:...`, a WAV of what it heard) is
 * recognized here by pocketsphinx against a grammar of a few phrases, so the transcript says what
 * really arrived through the page's AudioWorklet, the socket and the server, or nothing.
 *
 * Checked: the agent heard the fake microphone's words (the run's transcript and the page's), the page
 * played the agent's audio (the worklet's counter of audible samples, not just bytes on the socket),
 * each answer's latency is shown, hang-up ends the call and the run is linked. Barge-in: on a node the
 * caller may interrupt, the microphone's words over a long greeting make the server send `clear`, the
 * worklet empties its queue (its counter of clears), and the run's greeting is cut where it was.
 */
import * as LocalSpeechToText from "@agentline/voice-local/LocalSpeechToText"
import { type Answer, reply } from "@agentline/voice-openai/testing/FakeOpenAi"
import { startFakeOpenAi } from "@agentline/voice-openai/testing/FakeOpenAi"
import { NodeContext } from "@effect/platform-node"
import { Chunk, Effect, Exit, Scope, Stream } from "effect"
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { dashboardSuite } from "./Harness.js"

const SAID = "yes i am interested"
/** What the recognizer may answer: the fake microphone's words, or one of these others. */
const PHRASES = [SAID, "i live in paris", "no thank you", "goodbye"]

let fakeUrl: string | undefined
let microphone: string | undefined
const scope = Effect.runSync(Scope.make())

const recognizer = Effect.runSync(Effect.cached(
  LocalSpeechToText.make().pipe(Effect.provide(NodeContext.layer))
))

/** The WAV inside a multipart upload, as 16-bit PCM at its rate. */
const wavOf = (body: Buffer) => {
  const riff = body.indexOf("RIFF")
  const wav = body.subarray(riff)
  const rate = wav.readUInt32LE(24)
  const data = wav.indexOf("data")
  const size = wav.readUInt32LE(data + 4)
  return { rate, pcm: new Uint8Array(wav.subarray(data + 8, data + 8 + size)) }
}

/** What pocketsphinx hears in an uploaded utterance, among `PHRASES` (nothing when none). */
const transcribe = (body: Buffer): Promise<Answer> => {
  const { pcm, rate } = wavOf(body)
  const padded = new Uint8Array(pcm.length + rate * 2)
  padded.set(pcm)
  return Effect.runPromise(Effect.gen(function*() {
    const stt = yield* recognizer
    const heard = yield* Stream.runCollect(stt.transcribe(Stream.make({ format: { encoding: "l16le" as const, sampleRate: rate }, data: padded }), { phrases: PHRASES }))
    const text = Chunk.toReadonlyArray(heard).join(" ").trim()
    return { _tag: "Stream", done: false, chunks: [{ type: "transcript.text.done", text }] } satisfies Answer
  }))
}

beforeAll(async () => {
  // The fake microphone: two seconds of silence, the words, four seconds of silence (Chromium loops it).
  const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-webcall-"))
  const spoken = NodePath.join(dir, "spoken.wav")
  microphone = NodePath.join(dir, "microphone.wav")
  ChildProcess.execFileSync("espeak-ng", ["-v", "en-us", "-s", "150", "-w", spoken, "Yes, I am interested."])
  ChildProcess.execFileSync("sox", [spoken, "-r", "48000", "-c", "1", "-b", "16", microphone, "pad", "2", "4"])
  fakeUrl = (await Effect.runPromise(Scope.extend(
    startFakeOpenAi([], (request) => {
      if (request.path.endsWith("/audio/transcriptions")) return transcribe(request.body)
      const last = request.body.messages.at(-1)
      return last?.role === "user" ? reply("Wonderful, thank you.") : reply("How can I help?")
    }),
    scope
  ))).url
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const need = <A>(value: A | undefined): A => {
  if (value === undefined) throw new Error("not started")
  return value
}

const agentDefinition = {
  nodes: [
    {
      id: "start",
      type: "startCall",
      position: { x: 0, y: 0 },
      data: { name: "Start", prompt: "Web agent: talk with the visitor.", greeting: "Hello, this is Acme." }
    }
  ],
  edges: []
}

/** A greeting of about fourteen seconds (espeak-ng at 150 words a minute), on a node the caller may interrupt. */
const LONG_GREETING = "Hello, this is Acme. Let me tell you about our plans. The first plan costs ten dollars. " +
  "The second plan costs twenty dollars. The third plan costs thirty dollars and includes everything we offer today."

const interruptible = {
  nodes: [{ ...agentDefinition.nodes[0]!, data: { ...agentDefinition.nodes[0]!.data, greeting: LONG_GREETING, allow_interrupt: true } }],
  edges: []
}

dashboardSuite("Web calls", (dashboard) => {
  it("Talk on the agent page: the agent hears the microphone's words, the page plays its answers, hang-up links the run", async () => {
    const agent = await dashboard.api("POST", "/api/v1/workflow/create/definition", {
      name: "Web caller",
      workflow_definition: agentDefinition,
      workflow_configurations: { smart_turn_stop_secs: 0.6, max_user_idle_timeout: 60 }
    })
    const user = await dashboard.newUser()
    const page = await dashboard.loggedIn(user)
    await page.goto(`/agents/${agent.id}`)
    const panel = page.getByRole("complementary", { name: "Talk to the agent" })
    await panel.getByRole("button", { name: "Talk" }).click()
    await panel.getByText("On the call: speak.").waitFor({ timeout: 20_000 })
    const transcript = panel.getByRole("list", { name: "Call transcript" })
    await transcript.getByText("Hello, this is Acme.").waitFor({ timeout: 20_000 })
    // The greeting was played by the page's worklet: over half a second of audible samples.
    const audible = async () => Number(await panel.getAttribute("data-audible-samples"))
    await expect.poll(audible, { timeout: 10_000 }).toBeGreaterThan(24_000)
    const afterGreeting = await audible()

    // The fake microphone's words reached the agent, which answered; the answer was played too.
    await transcript.getByText(SAID).first().waitFor({ timeout: 45_000 })
    await transcript.getByText("Wonderful, thank you.").first().waitFor({ timeout: 20_000 })
    await transcript.getByText(/answered in \d+ ms/).first().waitFor()
    await expect.poll(audible, { timeout: 10_000 }).toBeGreaterThan(afterGreeting + 12_000)
    await dashboard.screenshot(page, "agent-web-call", { fullPage: false })

    await panel.getByRole("button", { name: "Hang up" }).click()
    await panel.getByText(/The call has ended/).waitFor({ timeout: 20_000 })
    const link = panel.getByRole("link", { name: "Open the run" })
    const href = need((await link.getAttribute("href")) ?? undefined)
    const runId = Number(href.split("/").at(-1))

    const run = await dashboard.api("GET", `/api/v1/workflow/${agent.id}/runs/${runId}`)
    expect(run.mode).toBe("webcall")
    expect(run.is_completed).toBe(true)
    expect(run.annotations.web_call).toEqual({ source: "dashboard" })
    const lines = run.logs.transcript.map((line: { role: string; text: string }) => [line.role, line.text])
    expect(lines[0]).toEqual(["assistant", "Hello, this is Acme."])
    expect(lines).toContainEqual(["user", SAID])
    expect(lines).toContainEqual(["assistant", "Wonderful, thank you."])
    expect(run.recording_url).not.toBeNull()
    await link.click()
    await page.waitForURL(`**/runs/${agent.id}/${runId}`)
    // The run page afterwards: the conversation as the run recorded it, the microphone's words included.
    await page.getByText("Wonderful, thank you.").first().waitFor()
    await page.getByText(SAID).first().waitFor()
  }, 180_000)

  it("barge-in: the microphone's words over the agent's long greeting clear the page's playback queue; the greeting is cut in the transcript", async () => {
    const agent = await dashboard.api("POST", "/api/v1/workflow/create/definition", {
      name: "Long talker",
      workflow_definition: interruptible,
      workflow_configurations: { smart_turn_stop_secs: 0.6, max_user_idle_timeout: 60 }
    })
    const page = await dashboard.loggedIn(await dashboard.newUser())
    await page.goto(`/agents/${agent.id}`)
    const panel = page.getByRole("complementary", { name: "Talk to the agent" })
    await panel.getByRole("button", { name: "Talk" }).click()
    // The fake microphone speaks within the greeting: the server says clear, the worklet empties its queue.
    await expect.poll(async () => Number(await panel.getAttribute("data-clears")), { timeout: 30_000 }).toBeGreaterThan(0)
    const transcript = panel.getByRole("list", { name: "Call transcript" })
    await transcript.getByText(SAID).first().waitFor({ timeout: 30_000 })
    await transcript.getByText("Wonderful, thank you.").first().waitFor({ timeout: 20_000 })
    await panel.getByRole("button", { name: "Hang up" }).click()
    await panel.getByText(/The call has ended/).waitFor({ timeout: 20_000 })
    const href = need((await panel.getByRole("link", { name: "Open the run" }).getAttribute("href")) ?? undefined)

    const run = await dashboard.api("GET", `/api/v1/workflow/${agent.id}/runs/${Number(href.split("/").at(-1))}`)
    const greeting = run.logs.transcript[0]
    expect(greeting.role).toBe("assistant")
    expect(greeting.interrupted).toBe(true)
    expect(LONG_GREETING.startsWith(greeting.text)).toBe(true)
    expect(greeting.text.length).toBeLessThan(LONG_GREETING.length)
    expect(run.logs.realtime_feedback_events.some((e: { type: string }) => e.type === "rtf-interruption")).toBe(true)
    // The page played only part of the greeting (about fourteen seconds whole) and the short answer.
    const seconds = Number(await panel.getAttribute("data-audible-samples")) / Number(await panel.getAttribute("data-sample-rate"))
    expect(seconds).toBeGreaterThan(0.5)
    expect(seconds).toBeLessThan(8)
  }, 180_000)
}, {
  serverEnv: () => ({ AGENTLINE_LLM: "openai:fake-model", OPENAI_BASE_URL: need(fakeUrl), OPENAI_API_KEY: "sk-fake", AGENTLINE_STT: "openai:whisper-1" }),
  browserArgs: () => [
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    `--use-file-for-fake-audio-capture=${need(microphone)}`
  ]
})
